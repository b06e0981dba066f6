//! The host stack a message passes on its way to and from the wire
//! (MODEL.md Sec. 2, NIC / endpoint): the software layers the CPU runs
//! (verbs, libfabric, MPI: [DeSensi20] Fig. 5) and the NIC's own latency
//! on each side, with the inline send of small payloads and the DMA read
//! of larger ones ([Roweth] Fig. 7).
//!
//! What the CPU spends occupies the rank (it cannot post the next message
//! meanwhile); what the NIC and the PCIe bus take only delays the message.
//! Defaults model a ConnectX-5 RoCE host, calibrated so a quiet 8-byte MPI
//! ping-pong through one switch takes 1.5-1.8 us one way ([Roweth] Sec.
//! II-F); how that total splits over the layers is not published and is
//! assumed (docs/model.md, "Host stack").

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, Result};

pub mod matching;
pub mod noise;
pub mod reliability;
pub use matching::{MatchingConfig, MatchingCosts, MatchingLocation};
pub use reliability::{ReliabilityConfig, ReliabilityModel, ResultStore};
use crate::units::{ns_to_ps, Ps};

/// The highest software layer a job's messages pass ([DeSensi20] Fig. 5):
/// each layer adds its CPU cost per message on each side to those below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftwareLayer {
    /// RDMA verbs straight on the NIC: every message is one send into a
    /// receive buffer posted in advance, with no eager copy and no
    /// rendezvous handshake (as `ib_send_lat` measures).
    Verbs,
    /// libfabric (the RxM provider over verbs on a RoCE host).
    Libfabric,
    /// MPI over libfabric (`mpi.send_overhead_ns`, `mpi.recv_overhead_ns`).
    Mpi,
}

impl crate::names::Named for SoftwareLayer {
    const WHAT: &'static str = "software layer";
    const REGISTRY: &'static [(&'static str, Self)] =
        &[("verbs", SoftwareLayer::Verbs), ("libfabric", SoftwareLayer::Libfabric), ("mpi", SoftwareLayer::Mpi)];
}
crate::named_serde!(SoftwareLayer);

/// `[host]`: the costs below the MPI library.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// The layer jobs' messages pass (`verbs`, `libfabric`, `mpi`).
    pub layer: SoftwareLayer,
    /// CPU time per message on each side in the verbs layer (posting the
    /// work request, polling the completion) *(assumed)*.
    pub verbs_overhead_ns: f64,
    /// CPU time per message on each side in libfabric *(assumed)*.
    pub libfabric_overhead_ns: f64,
    /// From the command the CPU writes to the first byte on the wire:
    /// doorbell over PCIe and the NIC's processing *(assumed)*.
    pub nic_send_latency_ns: f64,
    /// From the last byte in from the wire to the completion the CPU sees:
    /// the NIC's processing and its DMA write *(assumed)*.
    pub nic_recv_latency_ns: f64,
    /// Time the NIC's command unit spends on each message or one-sided
    /// operation a CPU posts, one after another per NIC (0: no limit). It
    /// caps the rate a node's processes together can hand the NIC
    /// commands at: Cassini's is *assumed* 10 ns, the same 100 million
    /// messages per second as its matching unit (`[host.matching]`), which
    /// puts [Roweth] Fig. 6's half-peak put bandwidth at about 128 B once
    /// 16 or more processes share a NIC.
    pub nic_command_ns: f64,
    /// Payloads up to this many bytes travel in the command itself; larger
    /// ones the NIC reads from memory first (Cassini: 96, [Roweth] Fig. 7;
    /// 0: every payload is read, its cost inside `nic_send_latency_ns`).
    pub inline_bytes: u64,
    /// What that DMA read adds to a message above `inline_bytes`.
    pub dma_read_ns: f64,
    /// Eager messages between nodes are copied through the NIC's
    /// registered bounce buffers on both sides, at the memory copy rate
    /// (`mpi.memory_gbytes_per_s`), as libfabric's RxM provider does over
    /// verbs (so not at the verbs layer); rendezvous data goes by RDMA
    /// without a copy.
    pub eager_copies: bool,
    /// A put with delivery completion ([Roweth] Sec. IV-C) returns its
    /// response only once its data has reached the point of ordering in
    /// the target's PCIe root complex: the NIC's write across the bus and
    /// a read behind it that confirms the write is there, one PCIe round
    /// trip after the data is in the NIC *(assumed 250 ns, the DMA read of
    /// the Cassini preset)*.
    pub delivery_complete_ns: f64,
    /// `[host.matching]`: where MPI matching runs and what it costs.
    pub matching: MatchingConfig,
    /// `[host.reliability]`: the end-to-end reliability model of each kind
    /// of one-sided operation.
    pub reliability: ReliabilityConfig,
    /// `[host.noise]`: detours of the ranks' CPUs ([`noise`]; none by default).
    pub noise: noise::NoiseConfig,
}

impl Default for HostConfig {
    fn default() -> Self {
        // A ConnectX-5 RoCE host: 2 x 250 ns of CPU and 850 ns of NIC per
        // message, with the 416 ns of a one-switch path, make the 8-byte
        // MPI latency 1.77 us ([Roweth] Sec. II-F: 1.5-1.8 us).
        HostConfig {
            layer: SoftwareLayer::Mpi,
            verbs_overhead_ns: 100.0,
            libfabric_overhead_ns: 100.0,
            nic_send_latency_ns: 450.0,
            nic_recv_latency_ns: 400.0,
            nic_command_ns: 0.0,
            inline_bytes: 0,
            dma_read_ns: 0.0,
            eager_copies: true,
            delivery_complete_ns: 250.0,
            matching: MatchingConfig::default(),
            reliability: ReliabilityConfig::default(),
            noise: noise::NoiseConfig::default(),
        }
    }
}

impl HostConfig {
    /// Checks the ranges; the error names the field.
    pub fn check(&self) -> Result<()> {
        use crate::limits::{check, check_count, OVERHEAD_NS};
        for (k, v) in [
            ("host.verbs_overhead_ns", self.verbs_overhead_ns),
            ("host.libfabric_overhead_ns", self.libfabric_overhead_ns),
            ("host.nic_send_latency_ns", self.nic_send_latency_ns),
            ("host.nic_recv_latency_ns", self.nic_recv_latency_ns),
            ("host.nic_command_ns", self.nic_command_ns),
            ("host.dma_read_ns", self.dma_read_ns),
            ("host.delivery_complete_ns", self.delivery_complete_ns),
        ] {
            check(k, v, &OVERHEAD_NS)?;
        }
        self.matching.check()?;
        self.noise.check()?;
        check_count("host.inline_bytes", self.inline_bytes, 0, 1 << 20, "bytes (Cassini sends 96 inline)")?;
        if self.inline_bytes > 0 && self.dma_read_ns == 0.0 {
            return Err(ConfigError::new(
                "host.dma_read_ns",
                format!(
                    "host.inline_bytes = {} says larger payloads are read by DMA, but the read costs nothing; give its latency \
                     (a few hundred ns over PCIe) or set host.inline_bytes = 0",
                    self.inline_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// The host stack in engine units.
#[derive(Clone, Copy, Debug)]
pub struct HostCosts {
    /// CPU time per message below MPI on each side, for the chosen layer.
    pub cpu_below_mpi: Ps,
    /// Whether MPI's own CPU costs apply.
    pub mpi_layer: bool,
    pub nic_send: Ps,
    pub nic_recv: Ps,
    /// The NIC command unit's time per posted operation (zero: no limit).
    pub nic_command: Ps,
    pub inline_bytes: u64,
    pub dma_read: Ps,
    pub eager_copies: bool,
    pub matching: MatchingCosts,
    pub delivery_complete: Ps,
    pub reliability: ReliabilityConfig,
}

impl HostCosts {
    /// The costs `c` gives.
    pub fn new(c: &HostConfig) -> HostCosts {
        let libfabric = if c.layer == SoftwareLayer::Verbs { 0.0 } else { c.libfabric_overhead_ns };
        HostCosts {
            cpu_below_mpi: ns_to_ps(c.verbs_overhead_ns + libfabric),
            mpi_layer: c.layer == SoftwareLayer::Mpi,
            nic_send: ns_to_ps(c.nic_send_latency_ns),
            nic_recv: ns_to_ps(c.nic_recv_latency_ns),
            nic_command: ns_to_ps(c.nic_command_ns),
            inline_bytes: c.inline_bytes,
            dma_read: ns_to_ps(c.dma_read_ns),
            eager_copies: c.eager_copies && c.layer != SoftwareLayer::Verbs,
            matching: MatchingCosts::new(&c.matching),
            delivery_complete: ns_to_ps(c.delivery_complete_ns),
            reliability: c.reliability,
        }
    }

    /// CPU time per message on one side, given MPI's own cost there.
    pub fn cpu(&self, mpi: Ps) -> Ps {
        self.cpu_below_mpi + if self.mpi_layer { mpi } else { Ps::ZERO }
    }

    /// From the CPU's command to the wire, for a payload of `bytes`.
    pub fn send_latency(&self, bytes: u64) -> Ps {
        self.nic_send + if bytes > self.inline_bytes && self.inline_bytes > 0 { self.dma_read } else { Ps::ZERO }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_add_their_cpu_costs_and_large_payloads_their_dma_read() {
        let mut c = HostConfig { inline_bytes: 96, dma_read_ns: 250.0, ..HostConfig::default() };
        let mpi = Ps(50_000);
        assert_eq!(HostCosts::new(&c).cpu(mpi), Ps(250_000));
        c.layer = SoftwareLayer::Libfabric;
        assert_eq!(HostCosts::new(&c).cpu(mpi), Ps(200_000));
        c.layer = SoftwareLayer::Verbs;
        assert_eq!(HostCosts::new(&c).cpu(mpi), Ps(100_000));
        let h = HostCosts::new(&c);
        assert_eq!(h.send_latency(96), Ps(450_000));
        assert_eq!(h.send_latency(97), Ps(700_000));
        assert_eq!(HostCosts::new(&HostConfig::default()).send_latency(1 << 20), Ps(450_000), "no inline path: no step");
    }

    #[test]
    fn an_inline_path_without_a_read_cost_is_refused() {
        let c = HostConfig { inline_bytes: 96, ..HostConfig::default() };
        assert_eq!(c.check().unwrap_err().field, "host.dma_read_ns");
        assert_eq!(HostConfig { nic_send_latency_ns: -1.0, ..HostConfig::default() }.check().unwrap_err().field, "host.nic_send_latency_ns");
    }
}
