//! Range and consistency checks of a parsed config: every number in its
//! physical range, named by its key, before any component is built.

use super::Config;
use crate::error::{ConfigError, Result};

impl Config {
    /// Checks the ranges of numeric fields that are not topology-specific
    /// (topology builders check their own): every number in its physical
    /// range with its unit ([`crate::limits`]).
    pub(super) fn check_numbers(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        // `[mpi]` is checked where it is read, when jobs are built; checking
        // it here too refuses a bad value as soon as a config is read (a
        // resolved config, a study's --set), not once a run has started.
        crate::mpi::runtime::Params::new(&self.mpi, &self.host)?;
        check("nic.bandwidth_bps", self.nic.bandwidth_bps, &lim::BANDWIDTH_BPS)?;
        if let Some(b) = self.nic.node_injection_bps {
            check("nic.node_injection_bps", b, &lim::BANDWIDTH_BPS)?;
        }
        check("links.bandwidth_bps", self.links.bandwidth_bps, &lim::BANDWIDTH_BPS)?;
        if let Some(b) = self.links.global_bandwidth_bps {
            check("links.global_bandwidth_bps", b, &lim::BANDWIDTH_BPS)?;
        }
        check_count("nic.flit_bytes", self.nic.flit_bytes as u64, 1, 4096, "bytes")?;
        check_count("nic.mtu_payload", self.nic.mtu_payload as u64, 1, 1 << 20, "bytes (1 MiB; Slingshot and RoCE carry 4096)")?;
        check_count("nic.max_outstanding_packets", self.nic.max_outstanding_packets as u64, 0, 1 << 24, "packets (0: no limit)")?;
        check_count("nic.max_retries", self.nic.max_retries as u64, 0, 255, "retries")?;
        check("nic.retry_timeout_ns", self.nic.retry_timeout_ns, &lim::DURATION_NS)?;
        for (k, v) in [
            ("links.terminal_latency_ns", self.links.terminal_latency_ns),
            ("links.local_latency_ns", self.links.local_latency_ns),
            ("links.global_latency_ns", self.links.global_latency_ns),
            ("links.fec_latency_ns", self.links.fec_latency_ns),
            ("switch.latency_ns", self.switch.latency_ns),
        ] {
            check(k, v, &lim::LATENCY_NS)?;
        }
        check(
            "switch.latency_spread_fraction",
            self.switch.latency_spread_fraction,
            &lim::Limit { min: 0.0, max: 2.0, says: "between 0 and 2 (a fraction of switch.latency_ns: the range it spans around the mean; 0.07 fits [Roweth] Sec. II-F)" },
        )?;
        for (k, v) in [
            ("routing.ugal_threshold_bytes", self.routing.ugal_threshold_bytes),
            ("routing.bias_bytes", self.routing.bias_bytes),
            ("routing.aries_low_bias_bytes", self.routing.aries_low_bias_bytes),
            ("routing.aries_high_bias_bytes", self.routing.aries_high_bias_bytes),
        ] {
            check(k, v, &lim::BYTES)?;
        }
        check("routing.neighbour_load_refresh_ns", self.routing.neighbour_load_refresh_ns, &lim::DURATION_NS)?;
        if !(self.links.bit_error_rate >= 0.0 && self.links.bit_error_rate < 1e-3) {
            return Err(ConfigError::new(
                "links.bit_error_rate",
                format!("must be in [0, 1e-3) (real links run near 1e-12 before FEC), got {}", self.links.bit_error_rate),
            ));
        }
        for (i, d) in self.links.degraded.iter().enumerate() {
            if !(1..=4).contains(&d.lanes) {
                return Err(ConfigError::new(format!("links.degraded[{i}].lanes"), format!("a link has 4 lanes; give 1 to 4, got {}", d.lanes)));
            }
        }
        for (i, f) in self.links.failed.iter().enumerate() {
            check(&format!("links.failed[{i}].at_ns"), f.at_ns, &lim::TIME_NS)?;
        }
        if let Some(r) = &self.links.random_failures {
            r.check()?;
        }
        if let Some(d) = self.links.reroute_after_ns {
            check("links.reroute_after_ns", d, &lim::TIME_NS)?;
        }
        check("switch.speedup", self.switch.speedup, &lim::SPEEDUP)?;
        check_count("switch.buffer_bytes", self.switch.buffer_bytes as u64, 1, 1 << 30, "bytes (1 GiB; Rosetta has 128 KiB per port)")?;
        if let Some(b) = self.switch.terminal_buffer_bytes {
            check_count("switch.terminal_buffer_bytes", b as u64, 1, 1 << 30, "bytes (1 GiB; leave it out to give NIC-facing ports switch.buffer_bytes)")?;
        }
        check_count("switch.tile_rows", self.switch.tile_rows as u64, 1, crate::crossbar::MAX_ROWS as u64, "rows (Rosetta has 4, Aries 6)")?;
        check_count("switch.tile_columns", self.switch.tile_columns as u64, 1, 256, "columns (Rosetta and Aries have 8)")?;
        check_count("switch.ports_per_tile", self.switch.ports_per_tile as u64, 1, 256, "ports (Rosetta has 2, Aries 1)")?;
        check("cost.link_usd", self.cost.link_usd, &lim::USD)?;
        check("cost.router_usd", self.cost.router_usd, &lim::USD)?;
        self.host.check()?;
        self.check_sim()?;
        self.check_traffic()?;
        self.check_jobs()?;
        self.check_congestion()?;
        self.check_classes()
    }

    /// Run control: every time representable in picoseconds, every
    /// length at least one picosecond.
    fn check_sim(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        let s = &self.sim;
        check("sim.warmup_ns", s.warmup_ns, &lim::TIME_NS)?;
        check("sim.duration_ns", s.duration_ns, &lim::DURATION_NS)?;
        check("sim.max_time_ns", s.max_time_ns, &lim::DURATION_NS)?;
        if let Some(w) = s.watchdog_ns {
            check("sim.watchdog_ns", w, &lim::DURATION_NS)?;
        }
        check("sim.timeline_bin_ns", s.timeline_bin_ns, &lim::DURATION_NS)?;
        if let Some(d) = s.drain_ns {
            check("sim.drain_ns", d, &lim::TIME_NS)?;
        }
        if let Some(w) = s.wall_limit_s {
            check("sim.wall_limit_s", w, &crate::limits::Limit { min: 1e-3, max: 1e9, says: "between 0.001 and 1e9 seconds of wall-clock time" })?;
        }
        check_count("sim.link_snapshots_ns", s.link_snapshots_ns.len() as u64, 0, 1 << 12, "times")?;
        for (i, &t) in s.link_snapshots_ns.iter().enumerate() {
            check(&format!("sim.link_snapshots_ns[{i}]"), t, &lim::DURATION_NS)?;
            if i > 0 && t <= s.link_snapshots_ns[i - 1] {
                return Err(ConfigError::new(
                    format!("sim.link_snapshots_ns[{i}]"),
                    format!("{t} ns is not after the time before it ({} ns); give the times in ascending order, each once", s.link_snapshots_ns[i - 1]),
                ));
            }
        }
        check_count("sim.packet_sample_limit", s.packet_sample_limit as u64, 2, 1 << 28, "rows")?;
        check_count("sim.timeline_max_bins", s.timeline_max_bins as u64, 2, 1 << 24, "bins")?;
        Ok(())
    }

    /// Traffic sources' numbers.
    fn check_traffic(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        for (i, t) in self.traffic.iter().enumerate() {
            let f = format!("traffic[{i}]");
            check(&format!("{f}.start_ns"), t.start_ns, &lim::TIME_NS)?;
            if let Some(stop) = t.stop_ns {
                check(&format!("{f}.stop_ns"), stop, &lim::TIME_NS)?;
            }
            check(&format!("{f}.message_bytes"), t.message_bytes as f64, &lim::SIZE_BYTES)?;
            let packets = t.message_bytes.div_ceil(self.nic.mtu_payload.max(1) as u64).max(1);
            let limit = self.nic.max_outstanding_packets as u64;
            if t.flow_bytes.is_none() && self.nic.outstanding_release == crate::nic::OutstandingRelease::Message && limit > 0 && packets > limit {
                // Its answers could not be told apart from other messages'.
                return Err(ConfigError::new(
                    format!("{f}.message_bytes"),
                    format!(
                        "{} bytes is {packets} packets, more than nic.max_outstanding_packets ({limit}); with nic.outstanding_release = \"message\" \
                         a message's blocks are counted from the answers to its own packets, which a synthetic source's untracked messages do not carry: \
                         send at most {} bytes per message, make the source a flow source (flow_bytes), or use outstanding_release = \"all\" or \"each\"",
                        t.message_bytes,
                        limit * self.nic.mtu_payload as u64
                    ),
                ));
            }
            if let Some(b) = t.flow_bytes {
                check(&format!("{f}.flow_bytes"), b as f64, &lim::SIZE_BYTES)?;
                check_count(&format!("{f}.flows_per_node"), t.flows_per_node as u64, 1, 1 << 20, "flows")?;
            }
            if let Some(interval) = t.interval_ns {
                check(&format!("{f}.interval_ns"), interval, &lim::DURATION_NS)?;
            }
            // Checked for flow sources too (which send at line rate and do
            // not use it), so a source turned into one keeps a sane value.
            if !(t.load.is_finite() && t.load > 0.0 && t.load <= 1.0) {
                return Err(ConfigError::new(
                    format!("{f}.load"),
                    format!("offered load must be in (0, 1] (a fraction of the node injection bandwidth), got {}", t.load),
                ));
            }
        }
        Ok(())
    }

    /// Jobs' numbers.
    fn check_jobs(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        for (i, j) in self.job.iter().enumerate() {
            let f = format!("job[{i}]");
            check_count(&format!("{f}.ppn"), j.ppn as u64, 1, 512, "processes per node")?;
            check(&format!("{f}.start_ns"), j.start_ns, &lim::TIME_NS)?;
            check(&format!("{f}.compute_ns"), j.compute_ns, &lim::TIME_NS)?;
            check(&format!("{f}.burst_gap_ns"), j.burst_gap_ns, &lim::TIME_NS)?;
            check(&format!("{f}.compute_scale"), j.compute_scale, &lim::SCALE)?;
            check(&format!("{f}.bytes"), j.bytes as f64, &lim::BYTES)?;
            if let Some(n) = j.iterations {
                check_count(&format!("{f}.iterations"), n as u64, 1, 1 << 30, "iterations")?;
            }
        }
        let m = &self.mpi;
        check("mpi.eager_threshold_bytes", m.eager_threshold_bytes as f64, &lim::BYTES)?;
        check("mpi.control_bytes", m.control_bytes as f64, &lim::SIZE_BYTES)?;
        check("mpi.send_overhead_ns", m.send_overhead_ns, &lim::OVERHEAD_NS)?;
        check("mpi.recv_overhead_ns", m.recv_overhead_ns, &lim::OVERHEAD_NS)?;
        check("mpi.memory_latency_ns", m.memory_latency_ns, &lim::OVERHEAD_NS)?;
        check("mpi.memory_gbytes_per_s", m.memory_gbytes_per_s, &lim::GBYTES_PER_S)?;
        if m.reduce_gbytes_per_s != 0.0 {
            check("mpi.reduce_gbytes_per_s", m.reduce_gbytes_per_s, &lim::GBYTES_PER_S)?;
        }
        Ok(())
    }

    fn check_congestion(&self) -> Result<()> {
        use crate::limits::{self as lim, check};
        let c = &self.congestion;
        for (k, v) in [
            ("congestion.min_window_bytes", c.min_window_bytes),
            ("congestion.max_window_bytes", c.max_window_bytes),
            ("congestion.port_threshold_bytes", c.port_threshold_bytes),
            ("congestion.additive_increase_bytes", c.additive_increase_bytes),
            ("congestion.kmax_bytes", c.kmax_bytes),
            ("congestion.byte_counter_bytes", c.byte_counter_bytes),
        ] {
            crate::limits::check_count(k, v, 1, 1 << 30, "bytes (1 GiB)")?;
        }
        crate::limits::check_count("congestion.hop_hold_bytes", c.hop_hold_bytes, 0, 1 << 30, "bytes (1 GiB; 0 holds flows at their ingress switch only)")?;
        check("congestion.kmin_bytes", c.kmin_bytes as f64, &lim::BYTES)?;
        for (k, v) in [("congestion.flow_memory_ns", c.flow_memory_ns), ("congestion.cnp_interval_ns", c.cnp_interval_ns), ("congestion.alpha_timer_ns", c.alpha_timer_ns), ("congestion.rate_timer_ns", c.rate_timer_ns)] {
            check(k, v, &lim::DURATION_NS)?;
        }
        for (k, v) in [("congestion.rai_bps", c.rai_bps), ("congestion.rhai_bps", c.rhai_bps), ("congestion.min_rate_bps", c.min_rate_bps)] {
            check(k, v, &lim::Limit { min: 1.0, max: 1e14, says: "between 1 and 1e14 bits/s" })?;
        }
        crate::limits::check_count("congestion.fast_recovery_steps", c.fast_recovery_steps as u64, 0, 1 << 20, "steps")?;
        if c.max_window_bytes < c.min_window_bytes {
            return Err(ConfigError::new("congestion.max_window_bytes", "must be at least congestion.min_window_bytes"));
        }
        if c.port_threshold_bytes == 0 {
            return Err(ConfigError::new("congestion.port_threshold_bytes", "must be at least 1 byte"));
        }
        if c.kmax_bytes <= c.kmin_bytes {
            return Err(ConfigError::new("congestion.kmax_bytes", format!("must exceed congestion.kmin_bytes ({})", c.kmin_bytes)));
        }
        if !(c.pmax > 0.0 && c.pmax <= 1.0) {
            return Err(ConfigError::new("congestion.pmax", format!("a marking probability in (0, 1], got {}", c.pmax)));
        }
        if !(c.g > 0.0 && c.g < 1.0) {
            return Err(ConfigError::new("congestion.g", format!("alpha gain must be in (0, 1), got {}", c.g)));
        }
        if c.forget_idle_flows.is_some() && c.algorithm != crate::congestion::CongestionKind::Slingshot {
            return Err(ConfigError::new(
                "congestion.forget_idle_flows",
                format!("applies to algorithm = \"slingshot\" only (the switches' flow tracking), not {:?}; leave it out or set congestion.algorithm = \"slingshot\"", crate::names::Named::name(c.algorithm)),
            ));
        }

        Ok(())
    }

    fn check_classes(&self) -> Result<()> {
        use crate::limits::{self as lim, check};
        check("qos.window_ns", self.qos.window_ns, &lim::DURATION_NS)?;
        check("qos.lossy_queue_bytes", self.qos.lossy_queue_bytes as f64, &lim::SIZE_BYTES)?;
        if self.classes.len() > 8 {
            return Err(ConfigError::new("classes", format!("at most 8 traffic classes (Rosetta has 8), got {}", self.classes.len())));
        }
        let mut min_sum = 0.0;
        for (i, c) in self.classes.iter().enumerate() {
            let f = format!("classes[{i}]");
            if c.name.is_empty() {
                return Err(ConfigError::new(format!("{f}.name"), "every traffic class needs a name"));
            }
            if self.classes[..i].iter().any(|o| o.name == c.name) {
                return Err(ConfigError::new(format!("{f}.name"), format!("duplicate class name {:?}", c.name)));
            }
            if c.dscp > 63 {
                return Err(ConfigError::new(format!("{f}.dscp"), format!("DSCP is 6 bits (0-63), got {}", c.dscp)));
            }
            if self.classes[..i].iter().any(|o| o.dscp == c.dscp) {
                return Err(ConfigError::new(format!("{f}.dscp"), format!("DSCP {} already selects another class; give each class its own", c.dscp)));
            }
            if !(0.0..=1.0).contains(&c.min_share) {
                return Err(ConfigError::new(format!("{f}.min_share"), format!("a fraction in [0, 1], got {}", c.min_share)));
            }
            if !(c.max_share > 0.0 && c.max_share <= 1.0) || c.max_share < c.min_share {
                return Err(ConfigError::new(format!("{f}.max_share"), format!("a fraction in (0, 1] no smaller than min_share, got {}", c.max_share)));
            }
            if let Some(b) = c.bias_bytes {
                check(&format!("{f}.bias_bytes"), b, &lim::BYTES)?;
            }
            min_sum += c.min_share;
        }
        if min_sum > 1.0 + 1e-9 {
            return Err(ConfigError::new("classes", format!("minimum shares add up to {min_sum}, more than the whole link; lower some min_share")));
        }
        for (i, t) in self.traffic.iter().enumerate() {
            if let Some(s) = t.stop_ns {
                if !(s.is_finite() && s > t.start_ns) {
                    return Err(ConfigError::new(format!("traffic[{i}].stop_ns"), format!("must be after start_ns ({}), got {s}", t.start_ns)));
                }
            }
            if t.class.is_some() && t.dscp.is_some() {
                return Err(ConfigError::new(format!("traffic[{i}].dscp"), "give the class by name (class) or by DSCP (dscp), not both"));
            }
        }
        Ok(())
    }
}
