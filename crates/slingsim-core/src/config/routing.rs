//! `[routing]`: the routing mode and its biases.

use serde::{Deserialize, Serialize};

/// Routing choice (MODEL.md Sec. 4).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingConfig {
    /// The routing mode of every packet that names none (docs/config.md lists them).
    pub algorithm: crate::routing::Algorithm,
    /// UGAL keeps the minimal path unless it costs this many byte-hops more.
    pub ugal_threshold_bytes: f64,
    /// Slingshot adaptive routing's bias toward minimal paths (byte-hops
    /// added to non-minimal candidates) *(assumed)*.
    pub bias_bytes: f64,
    /// Aries ADAPTIVE_2 ("low") and ADAPTIVE_3 ("high") biases; ADAPTIVE_1
    /// starts at low and doubles per hop up to high *(assumed values)*.
    pub aries_low_bias_bytes: f64,
    pub aries_high_bias_bytes: f64,
    /// Slingshot adaptive routing adds to a candidate path the load its
    /// next switch advertises for the path's global link, carried back on
    /// acknowledgements ([DeSensi20] Sec. II-C).
    pub neighbour_load: bool,
    /// How stale that advertised load may be: it is refreshed at most this
    /// often *(assumed: [DeSensi20] gives ~4 bytes of load information per
    /// forward packet, not a period)*.
    pub neighbour_load_refresh_ns: f64,
    /// Where the adaptive modes' second minimal candidate comes from
    /// (docs/config.md, `routing.minimal_paths`).
    pub minimal_paths: crate::routing::MinimalPaths,
}

impl Default for RoutingConfig {
    fn default() -> Self {
        // 64 KiB byte-hops, about five full RoCE packets over three hops: a
        // packet counts until its credits return, so an uncongested output
        // shows a few packets, and a smaller margin sends uniform traffic
        // the long way (docs/model.md measures the trade-off).
        RoutingConfig {
            algorithm: crate::routing::Algorithm::Minimal,
            ugal_threshold_bytes: 65_536.0,
            bias_bytes: 65_536.0,
            aries_low_bias_bytes: 16_384.0,
            aries_high_bias_bytes: 131_072.0,
            neighbour_load: true,
            neighbour_load_refresh_ns: 300.0,
            minimal_paths: crate::routing::MinimalPaths::Shortest,
        }
    }
}
