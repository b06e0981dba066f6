//! The megafly topology family (issue 3): being written in this session.

use super::Built;
use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::error::{ConfigError, Result};

/// Builds a megafly network.
pub fn build(_t: &TopologyConfig, _l: &LinkConfig, _n: &NicConfig) -> Result<Built> {
    Err(ConfigError::new("topology.kind", "the megafly topology is not implemented yet in this build; use \"dragonfly\""))
}
