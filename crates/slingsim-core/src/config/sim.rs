//! `[sim]`: run control, seed and measurement.

use serde::{Deserialize, Serialize};

/// Run control and measurement.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    pub seed: u64,
    pub warmup_ns: f64,
    pub duration_ns: f64,
    pub max_time_ns: f64,
    /// A run with packets in the network and none moving for this long
    /// has deadlocked (default: 500 us, or longer where a hop of this
    /// network takes longer; a value below the network's floor is refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watchdog_ns: Option<f64>,
    /// Every Nth measured packet goes to the packets table (0: none) ...
    pub packet_sample_every: u32,
    /// ... and the table keeps at most this many: when full, every other
    /// row goes and N doubles, so it stays an even sample of the whole run.
    pub packet_sample_limit: u32,
    /// Width of the bins of the per-source delivery timeline ...
    pub timeline_bin_ns: f64,
    /// ... and the most bins a timeline has: a longer run merges
    /// neighbouring bins, doubling their width.
    pub timeline_max_bins: u32,
    /// After the measurement window, the run goes on (sources still
    /// sending, unmeasured) until every measured packet injected in the
    /// window is delivered, for at most this long (default: duration_ns).
    /// Without it, latency would count only the packets that got through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain_ns: Option<f64>,
    /// Ends the run (end reason `wall_limit`) after this many seconds of
    /// wall-clock time (default: none). The result then depends on the
    /// machine's speed, and says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_limit_s: Option<f64>,
    /// With MPI jobs: end the run when this job finishes (default: when
    /// every job without `repeat` has).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_after_job: Option<String>,
    /// Record, per traffic source, how long its measured data packets wait
    /// at each switch output, by where on the path the output is
    /// (`traffic.<name>.hop_waits_ns`; off by default: it costs a read of
    /// the packet's cold half at every hop).
    #[serde(skip_serializing_if = "is_false")]
    pub hop_waits: bool,
    /// Times (ns, ascending) at which to read every link's counters while
    /// the run goes on (the `link_snapshots` table; default: none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub link_snapshots_ns: Vec<f64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            warmup_ns: 10_000.0,
            duration_ns: 50_000.0,
            max_time_ns: 10_000_000.0,
            watchdog_ns: None,
            packet_sample_every: 16,
            packet_sample_limit: 100_000,
            timeline_bin_ns: 1_000.0,
            timeline_max_bins: 20_000,
            drain_ns: None,
            wall_limit_s: None,
            stop_after_job: None,
            hop_waits: false,
            link_snapshots_ns: Vec::new(),
        }
    }
}
