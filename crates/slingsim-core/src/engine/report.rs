//! Results of a run: the JSON summary and the packets, links and flows
//! tables (docs/results.md).

use crate::ids::SwitchId;
use super::nic::NicCounters;
use super::sources::FlowRecord;
use super::{Simulation, NEVER};
use crate::congestion::CongestionControl;
use crate::names::Named;
use crate::event::Event;
use crate::metrics::SourceStats;
use crate::network::{End, LinkKind};
use crate::nic::AckModel;
use crate::packet::PacketKind;
use crate::table::{Column, Table};
use crate::units::{ps_to_ns, Ps};
use serde_json::{json, Map, Value};

impl Simulation {
    /// Length of the measurement window so far (ps).
    fn window(&self) -> Ps {
        self.clock.now.min(self.clock.window_end).saturating_sub(self.clock.warmup).max(Ps(1))
    }

    /// Node injection bandwidth in bytes/s (all rails).
    fn node_bytes_per_s(&self) -> f64 {
        self.cfg.nic.bandwidth_bps * self.net.rails as f64 / 8.0
    }

    fn load(&self, wire: u64, nodes: usize) -> f64 {
        let secs = self.window().as_f64() * 1e-12;
        wire as f64 / (nodes.max(1) as f64 * self.node_bytes_per_s() * secs)
    }

    fn source_summary(&self, st: &SourceStats, nodes: usize) -> Value {
        let measured = st.measured.max(1) as f64;
        let mut v = json!({
            "nodes": nodes,
            "offered_load": self.load(st.offered_wire, nodes),
            "accepted_load": self.load(st.accepted_wire, nodes),
            "latency_ns": st.latency.summary(1e-3),
            "network_latency_ns": st.network_latency.summary(1e-3),
            "hops_mean": st.hops_sum as f64 / measured,
            "nonminimal_fraction": st.nonminimal as f64 / measured,
            "packets_delivered": st.packets_delivered,
            "bytes_delivered": st.bytes_delivered,
        });
        v["congestion_signals"] = json!(st.congestion_signals);
        if st.lost_bytes > 0 {
            v["lost_bytes"] = json!(st.lost_bytes);
        }
        if st.flows > 0 {
            v["flows"] = json!({"count": st.flows, "completed": st.flows_done, "lost": st.flows_lost, "fct_ns": st.fct.summary(1e-3)});
        }
        v
    }

    /// Calls `f` on every packet in the network, found by walking every
    /// queue, every packet on a wire and every lost packet awaiting its
    /// source's retry (independent of the running totals).
    fn for_each_in_network(&self, mut f: impl FnMut(&crate::packet::Packet)) {
        for (ch, t) in self.channels.tx.iter_ids() {
            for voq in self.switches.queues_of(ch, t.queues) {
                for h in self.switches.packets(voq) {
                    f(&self.pool.get(h));
                }
            }
        }
        for ev in self.events.iter() {
            if let Event::Arrive(h) | Event::Retry(h) = ev {
                f(&self.pool.get(h));
            }
        }
        for &h in self.nics.retry_queue.iter().flatten() {
            f(&self.pool.get(h));
        }
        for h in self.flow_queues.iter(&self.pool) {
            f(&self.pool.get(h));
        }
        for h in self.hop_hold.iter() {
            f(&self.pool.get(h));
        }
    }

    /// Payload bytes in the network, and its packets of each kind (an ack
    /// whose tail is coming in counts as in the network until it has).
    fn scan_in_flight(&self) -> (u64, [u64; PacketKind::COUNT]) {
        let (mut bytes, mut packets) = (0u64, [0u64; PacketKind::COUNT]);
        self.for_each_in_network(|p| {
            bytes += p.cold.payload as u64;
            packets[p.hot.kind.index()] += 1;
        });
        if self.nics.acks == AckModel::Packets {
            for ev in self.events.iter() {
                if let Event::Ack(id) = ev {
                    let kind = if self.signals.get(id).cnp { PacketKind::Cnp } else { PacketKind::Ack };
                    packets[kind.index()] += 1;
                }
            }
        }
        (bytes, packets)
    }

    /// Injected packets of each kind (`packets_by_kind`), and the life of
    /// acks and CNPs (`control_packets`); with `conserved`, whether every
    /// packet of every kind is accounted for.
    fn packets_by_kind(&self, in_flight: &[u64; PacketKind::COUNT]) -> (Value, Value, bool) {
        let (m, r) = (&self.measure, &self.reliability);
        let data = PacketKind::Data.index();
        let mut conserved = m.packets_injected == m.packets_delivered + in_flight[data] + r.packets_lost;
        let mut queued = [0u64; PacketKind::COUNT];
        for &h in self.nics.ack_queue.iter().flatten() {
            queued[self.pool.hot(h).kind.index()] += 1;
        }
        let (mut by_kind, mut control) = (Map::new(), Map::new());
        by_kind.insert(PacketKind::Data.name().into(), json!(m.packets_injected));
        for k in PacketKind::ALL.into_iter().filter(|&k| k != PacketKind::Data) {
            let (i, c) = (k.index(), &m.control);
            by_kind.insert(k.name().into(), json!(c.injected[i]));
            control.insert(
                k.name().into(),
                json!({"made": c.made[i], "injected": c.injected[i], "arrived": c.arrived[i], "queued_at_nic": queued[i], "in_flight": in_flight[i], "lost": c.lost[i]}),
            );
            conserved &= c.made[i] == c.injected[i] + queued[i] && c.injected[i] == c.arrived[i] + in_flight[i] + c.lost[i];
        }
        (Value::Object(by_kind), Value::Object(control), conserved)
    }

    /// Measured packets still in the network per source: how many, and the
    /// sum of their ages (now - creation). Latency that leaves them out
    /// would describe only the packets that got through.
    fn undelivered_by_source(&self) -> Vec<(u64, Ps)> {
        let mut out = vec![(0u64, Ps::ZERO); self.traffic.sources.len()];
        self.for_each_in_network(|p| {
            if p.hot.flags & crate::packet::FLAG_MEASURED != 0 {
                let o = &mut out[p.cold.source as usize];
                o.0 += 1;
                o.1 += self.clock.now.saturating_sub(p.cold.created);
            }
        });
        out
    }

    /// The run's summary (see docs/results.md for every key).
    pub fn summary(&self) -> Value {
        let (traffic, total, nodes) = self.traffic_summary();
        let (in_flight, in_flight_packets) = self.scan_in_flight();
        let (by_kind, control, packets_conserved) = self.packets_by_kind(&in_flight_packets);
        let queued: u64 = self.nics.queue.iter().flatten().map(|&m| self.nics.messages[m as usize].to_send).sum();
        let links = self.links_summary();
        let o = self.source_summary(&total, nodes);
        let (m, r) = (&self.measure, &self.reliability);
        let mut summary = json!({
            "sim_time_ns": ps_to_ns(self.clock.now),
            "warmup_ns": ps_to_ns(self.clock.warmup),
            "measured_undelivered": self.measure.measured_outstanding,
            "measured_ns": ps_to_ns(self.window()),
            "events": self.events.processed(),
            "packet_hops": m.packet_hops,
            "packets_injected": m.packets_injected,
            "packets_delivered": m.packets_delivered,
            "packets_in_flight": in_flight_packets[PacketKind::Data.index()],
            "bytes_injected": m.bytes_injected,
            "bytes_delivered": m.bytes_delivered,
            "bytes_in_flight": in_flight,
            "bytes_queued_at_source": queued,
            "bytes_lost": r.bytes_lost,
            "packets_lost": r.packets_lost,
            "e2e_retries": r.retries,
            "bytes_conserved": m.bytes_injected == m.bytes_delivered + in_flight + r.bytes_lost,
            "congestion": self.congestion_summary(),
            "classes": self.qos.classes.iter().map(|c| c.spec.name.clone()).collect::<Vec<_>>(),
            "llr_replays": self.channels.replays.iter().sum::<u64>(),
            "packets_out_of_order": self.flows.records.iter().map(|f| f.out_of_order).sum::<u64>(),
            "offered_load": o["offered_load"],
            "accepted_load": o["accepted_load"],
            "latency_ns": o["latency_ns"],
            "network_latency_ns": o["network_latency_ns"],
            "hops_mean": o["hops_mean"],
            "nonminimal_fraction": o["nonminimal_fraction"],
            "flows": o.get("flows").cloned().unwrap_or(Value::Null),
            "traffic": traffic,
            "jobs": self.jobs_summary(),
            "links": links,
            "end_reason": self.end_reason.map(|r| r.name()).unwrap_or("running"),
            "deadlock": if self.stuck.is_empty() { Value::Null } else { json!({"stuck_buffers": self.stuck}) },
            "partition": self.partition_summary(),
            "failed_links": self.failed_links_summary(),
            "nodes": self.net.nodes(),
            "endpoints": self.net.endpoint_up.len(),
            "routing": self.cfg.routing.algorithm.name(),
            "seed": self.cfg.sim.seed,
            "engine_wall_s": self.wall_s,
            "build_s": self.build_s,
        });
        // Outside the macro above, which is at its recursion limit.
        summary["packets_by_kind"] = by_kind;
        summary["control_packets"] = control;
        summary["packets_conserved"] = json!(packets_conserved);
        if let Some(w) = self.measure.hop_waits.summary(0..self.measure.stats.len()) {
            summary["hop_waits_ns"] = w;
        }
        if let Some(s) = self.link_snapshots_summary() {
            summary["link_snapshots"] = s;
        }
        if self.mpi.active() {
            summary["reliability"] = self.reliability_models_summary();
        }
        summary
    }

    /// `traffic` of the summary: one entry per source (a job's packets
    /// count under the job's name); with it, every source's statistics
    /// merged and the nodes the sources hold.
    fn traffic_summary(&self) -> (Map<String, Value>, SourceStats, usize) {
        let mut total = SourceStats::default();
        let mut traffic = Map::new();
        let mut nodes = 0;
        let undelivered = self.undelivered_by_source();
        for (i, (s, st)) in self.traffic.sources.iter().zip(&self.measure.stats).enumerate() {
            total.merge(st);
            nodes += s.nodes.len();
            let mut v = self.source_summary(st, s.nodes.len());
            let (n, age) = undelivered[i];
            let count = st.latency.count() + n;
            v["undelivered_packets"] = json!(n);
            v["latency_with_undelivered_ns"] = if count == 0 {
                Value::Null
            } else {
                json!((st.latency.sum() as f64 + age.as_f64()) / count as f64 / 1e3)
            };
            v["class"] = json!(self.qos.classes[self.traffic.class[i] as usize].spec.name);
            v["routing"] = json!(self.traffic.alg[i].name());
            if let Some(w) = self.measure.hop_waits.summary(std::iter::once(i)) {
                v["hop_waits_ns"] = w;
            }
            traffic.insert(s.name.clone(), v);
        }
        (traffic, total, nodes)
    }

    /// `links` of the summary: per kind of link, how many and how busy
    /// over the measured window.
    fn links_summary(&self) -> Map<String, Value> {
        let mut links = Map::new();
        for kind in [LinkKind::Terminal, LinkKind::Local, LinkKind::Global] {
            let utils: Vec<f64> = self
                .net
                .channels
                .iter_ids()
                .filter(|(_, c)| c.kind == kind)
                .map(|(i, _)| self.channels.tx[i].busy_ps.as_f64() / self.window().as_f64())
                .collect();
            if utils.is_empty() {
                continue;
            }
            links.insert(
                kind.name().into(),
                json!({
                    "count": utils.len() / 2,
                    "utilization_mean": utils.iter().sum::<f64>() / utils.len() as f64,
                    "utilization_max": utils.iter().cloned().fold(0.0, f64::max),
                }),
            );
        }
        links
    }

    /// `reliability` of the summary with MPI jobs: which model each kind of
    /// one-sided operation used and what the models did ([Roweth] Sec. IV-B).
    fn reliability_models_summary(&self) -> Value {
        use crate::names::Named;
        let (rt, m) = (&self.mpi, &self.mpi.p().host.reliability);
        let s = &rt.store;
        json!({
            "models": {"put": m.put.name(), "get": m.get.name(), "amo": m.amo.name()},
            "restricted_runs": s.restricted_runs,
            "unrestricted_runs": s.unrestricted_runs,
            "result_store_stored": s.stored,
            "result_store_hits": s.hits,
            "result_store_max_entries": s.max_entries,
            "result_store_entries_left": s.entries(),
            "amo_lost_requests": s.lost_requests,
            "amo_lost_responses": s.lost_responses,
            "reexecutions": s.reexecutions,
            "correctness_violations": s.violations,
            "amo_ops": rt.amo_ops,
            "amo_runs": rt.amo_runs,
        })
    }

    /// Every cable that fails in this run, listed and drawn
    /// (`links.random_failures`) alike, from the lower-numbered switch, and
    /// from when routes leave it out (at once if down from the start,
    /// after `links.reroute_after_ns` otherwise, never without it): `null`
    /// if none.
    fn failed_links_summary(&self) -> Value {
        let list: Vec<Value> = self
            .net
            .channels
            .iter_ids()
            .filter(|&(c, _)| self.channels.fail_at(c) != super::NEVER && c < self.net.reverse(c))
            .filter_map(|(c, ch)| match (ch.src, ch.dst) {
                (End::Switch { switch, port }, End::Switch { switch: to, .. }) => Some(json!({
                    "switch": switch.0,
                    "port": port,
                    "to_switch": to.0,
                    "kind": ch.kind.name(),
                    "at_ns": ps_to_ns(self.channels.fail_at(c)),
                    "rerouted_at_ns": match (self.channels.fail_at(c), self.cfg.links.reroute_after_ns) {
                        (Ps::ZERO, _) => json!(0.0),
                        (t, Some(d)) => json!(ps_to_ns(t) + d),
                        (_, None) => Value::Null,
                    },
                })),
                _ => None,
            })
            .collect();
        if list.is_empty() {
            Value::Null
        } else {
            Value::Array(list)
        }
    }

    /// The parts the network is cut into by the links that have failed by
    /// now (`null` if it is whole): each part's groups (a group cut inside
    /// itself shows in several parts) and switch count. Traffic between
    /// parts cannot arrive, which is why such a run ends with measured
    /// packets undelivered.
    fn partition_summary(&self) -> Value {
        let now = self.clock.now;
        let n = self.net.switches();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn root(p: &mut [u32], mut x: u32) -> u32 {
            while p[x as usize] != x {
                p[x as usize] = p[p[x as usize] as usize];
                x = p[x as usize];
            }
            x
        }
        for (c, ch) in self.net.channels.iter_ids() {
            if let (End::Switch { switch: a, .. }, End::Switch { switch: b, .. }) = (ch.src, ch.dst) {
                if self.channels.fail_at(c) > now {
                    let (ra, rb) = (root(&mut parent, a.0), root(&mut parent, b.0));
                    parent[ra as usize] = rb;
                }
            }
        }
        let mut parts: std::collections::BTreeMap<u32, (std::collections::BTreeSet<u32>, usize)> = Default::default();
        for s in 0..n as u32 {
            let r = root(&mut parent, s);
            let part = parts.entry(r).or_default();
            part.0.insert(self.topo.group(SwitchId(s)));
            part.1 += 1;
        }
        if parts.len() <= 1 {
            return Value::Null;
        }
        let list: Vec<Value> = parts.values().map(|(groups, switches)| json!({"groups": groups, "switches": switches})).collect();
        json!({"parts": list, "note": "failed links cut the network: packets between parts cannot arrive"})
    }

    /// Congestion-control signals and the endpoint pairs throttled now:
    /// every algorithm reports the same keys (0 where it has no such signal).
    fn congestion_summary(&self) -> Value {
        let mut v = json!({
            "algorithm": self.cc.kind().name(),
            "acks": self.signals.acks_received,
            "marked_acks": 0,
            "ecn_marks": 0,
            "cnps": 0,
            "lossy_drops": self.reliability.lossy_drops,
            "throttled_pairs": 0,
        });
        let m = v.as_object_mut().expect("an object");
        m.extend(self.cc.summary());
        if self.flow_queues.on {
            let f = &self.flow_queues;
            // Flow queues at ingress ports: packets in them at the end, the
            // most at once, and how many packets ever waited in one.
            m.insert("flow_queue_packets".into(), json!(f.held));
            m.insert("flow_queue_max_packets".into(), json!(f.max_held));
            m.insert("packets_held_at_ingress".into(), json!(f.ever_held));
        }
        if self.hop_hold.on() {
            let h = &self.hop_hold;
            // Congesting packets held beside a switch output: at the end,
            // the most at once, and how many ever waited there.
            m.insert("hop_held_packets".into(), json!(h.now_held));
            m.insert("hop_held_max_packets".into(), json!(h.max_held));
            m.insert("packets_held_at_hops".into(), json!(h.ever_held));
            m.insert("hop_congestion_acks".into(), json!(h.acks));
            // How long congestion acks took from the switch that made them
            // to their flow's ingress switch: the congested port's and the
            // hops'.
            for (name, d) in [("port", h.ack_delay[0]), ("hop", h.ack_delay[1])] {
                m.insert(format!("{name}_congestion_ack_delay_mean_ns"), json!(d.mean_ns()));
                m.insert(format!("{name}_congestion_ack_delay_max_ns"), json!(ps_to_ns(d.max)));
            }
        }
        v
    }

    /// Delivered throughput and latency of each source per time bin
    /// (`sim.timeline_bin_ns`), bins with deliveries only.
    pub fn timeline_table(&self) -> Table {
        let bin_ns = ps_to_ns(self.measure.timeline.bin);
        let (mut source, mut t_ns, mut bytes, mut gbps, mut lat, mut pkts) = (vec![], vec![], vec![], vec![], vec![], vec![]);
        for (s, line) in self.measure.timeline.lines.iter().enumerate() {
            for (b, x) in line.iter().enumerate() {
                if x.packets == 0 {
                    continue;
                }
                source.push(self.traffic.sources[s].name.clone());
                t_ns.push(b as f64 * bin_ns);
                bytes.push(x.wire);
                gbps.push(x.wire as f64 * 8.0 / bin_ns);
                lat.push(ps_to_ns(x.latency_ps) / x.packets as f64);
                pkts.push(x.packets);
            }
        }
        let mut t = Table::default();
        t.push("source", Column::Str(source));
        t.push("t_ns", Column::F64(t_ns));
        t.push("wire_bytes", Column::U64(bytes));
        t.push("throughput_gbps", Column::F64(gbps));
        t.push("mean_latency_ns", Column::F64(lat));
        t.push("packets", Column::U64(pkts));
        t
    }

    /// Sampled delivered packets.
    pub fn packets_table(&self) -> Table {
        let s = &self.measure.samples.rows;
        let mut t = Table::default();
        t.push("source", Column::Str(s.iter().map(|x| self.traffic.sources[x.source as usize].name.clone()).collect()));
        t.push("src_endpoint", Column::U64(s.iter().map(|x| x.src.0 as u64).collect()));
        t.push("dst_endpoint", Column::U64(s.iter().map(|x| x.dst.0 as u64).collect()));
        t.push("payload_bytes", Column::U64(s.iter().map(|x| x.payload as u64).collect()));
        t.push("wire_bytes", Column::U64(s.iter().map(|x| x.wire as u64).collect()));
        t.push("created_ns", Column::F64(s.iter().map(|x| ps_to_ns(x.created)).collect()));
        t.push("injected_ns", Column::F64(s.iter().map(|x| ps_to_ns(x.injected)).collect()));
        t.push("delivered_ns", Column::F64(s.iter().map(|x| ps_to_ns(x.delivered)).collect()));
        t.push("latency_ns", Column::F64(s.iter().map(|x| ps_to_ns(x.delivered - x.created)).collect()));
        t.push("hops", Column::U64(s.iter().map(|x| x.hops as u64).collect()));
        t.push("nonminimal", Column::Bool(s.iter().map(|x| x.nonminimal).collect()));
        t
    }

    /// One row per channel (one direction of a link).
    pub fn links_table(&self) -> Table {
        let ch = &self.net.channels;
        let side = |e: End| match e {
            End::Switch { switch, port } => (switch.0 as i64, port as i64, -1i64),
            End::Endpoint(x) => (-1, -1, x.0 as i64),
        };
        let mut t = Table::default();
        t.push("channel", Column::U64((0..ch.len() as u64).collect()));
        t.push("kind", Column::Str(ch.iter().map(|c| c.kind.name().to_string()).collect()));
        t.push("src_switch", Column::I64(ch.iter().map(|c| side(c.src).0).collect()));
        t.push("src_port", Column::I64(ch.iter().map(|c| side(c.src).1).collect()));
        t.push("src_endpoint", Column::I64(ch.iter().map(|c| side(c.src).2).collect()));
        t.push("dst_switch", Column::I64(ch.iter().map(|c| side(c.dst).0).collect()));
        t.push("dst_port", Column::I64(ch.iter().map(|c| side(c.dst).1).collect()));
        t.push("dst_endpoint", Column::I64(ch.iter().map(|c| side(c.dst).2).collect()));
        t.push("bandwidth_bps", Column::F64(ch.iter().map(|c| c.rate.bps()).collect()));
        let tx = &self.channels.tx;
        t.push("bytes", Column::U64(tx.iter().map(|t| t.bytes).collect()));
        let w = self.window().as_f64();
        t.push("utilization", Column::F64(tx.iter().map(|t| t.busy_ps.as_f64() / w).collect()));
        t.push("llr_replays", Column::U64(ch.ids().map(|c| self.channels.replays(c)).collect()));
        let (now, from, until) = (self.clock.now, self.clock.warmup, self.clock.window_end);
        t.push("stalled_ns", Column::F64(ch.ids().map(|c| self.channels.stalled(c, now, from, until).as_f64() / 1e3).collect()));
        t
    }

    /// One row per fixed-size flow or API message (MPI messages are
    /// reported per job instead).
    pub fn flows_table(&self) -> Table {
        let f: Vec<&FlowRecord> = self.flows.records.iter().filter(|x| x.mpi == crate::network::NONE).collect();
        let mut t = Table::default();
        t.push("source", Column::Str(f.iter().map(|x| self.traffic.sources[x.source as usize].name.clone()).collect()));
        t.push("src_node", Column::U64(f.iter().map(|x| x.src_node.0 as u64).collect()));
        t.push("dst_node", Column::U64(f.iter().map(|x| x.dst_node.0 as u64).collect()));
        t.push("bytes", Column::U64(f.iter().map(|x| x.bytes).collect()));
        t.push("start_ns", Column::F64(f.iter().map(|x| ps_to_ns(x.start)).collect()));
        t.push("end_ns", Column::F64(f.iter().map(|x| if x.end == NEVER { f64::NAN } else { ps_to_ns(x.end) }).collect()));
        // A flow that lost bytes ended (end_ns) but did not complete.
        let done = |x: &&FlowRecord| x.end != NEVER && x.lost_bytes == 0;
        t.push("completed", Column::Bool(f.iter().map(|x| done(x)).collect()));
        t.push("fct_ns", Column::F64(f.iter().map(|x| if done(x) { ps_to_ns(x.end - x.start) } else { f64::NAN }).collect()));
        t.push("out_of_order", Column::U64(f.iter().map(|x| x.out_of_order).collect()));
        t.push("lost_bytes", Column::U64(f.iter().map(|x| x.lost_bytes).collect()));
        push_counters(&mut t, &f.iter().map(|x| x.counters).collect::<Vec<_>>());
        t
    }

    /// The counters of node `n`'s NICs, its rails added up.
    pub(crate) fn node_nic_counters(&self, n: u32) -> NicCounters {
        NicCounters::of(&self.nics.counters, self.net.endpoints_of_node(crate::ids::NodeId(n)))
    }

    /// NIC counters per node (its rails added up), as on Cray Aries
    /// (paper 004 Sec. 2.3); readable between steps of a run.
    pub fn nic_counters_table(&self) -> Table {
        let nodes = self.net.nodes();
        let per_node: Vec<NicCounters> = (0..nodes as u32).map(|n| self.node_nic_counters(n)).collect();
        let mut t = Table::default();
        t.push("node", Column::U64((0..nodes as u64).collect()));
        push_counters(&mut t, &per_node);
        push_response_counters(&mut t, &per_node);
        t
    }
}

/// The counter columns: packets and flits sent, stalled time, cumulative
/// latency, delivered packets, and the averages the paper 004 model uses.
fn push_counters(t: &mut Table, c: &[NicCounters]) {
    t.push("packets_sent", Column::U64(c.iter().map(|x| x.packets).collect()));
    t.push("flits_sent", Column::U64(c.iter().map(|x| x.flits).collect()));
    t.push("stalled_ns", Column::F64(c.iter().map(|x| ps_to_ns(x.stalled_ps)).collect()));
    t.push("cumulative_latency_ns", Column::F64(c.iter().map(|x| ps_to_ns(x.latency_ps)).collect()));
    t.push("packets_delivered", Column::U64(c.iter().map(|x| x.delivered).collect()));
    t.push("stall_ns_per_flit", Column::F64(c.iter().map(|x| x.stall_ns_per_flit().unwrap_or(0.0)).collect()));
    t.push("mean_latency_ns", Column::F64(c.iter().map(|x| x.mean_latency_ns().unwrap_or(f64::NAN)).collect()));
}

/// Request-to-response latency ([DeSensi19] Sec. 2.3's L), counted per NIC:
/// a response may come back after its flow's record is reused, so the
/// flows table does not have it.
fn push_response_counters(t: &mut Table, c: &[NicCounters]) {
    t.push("responses", Column::U64(c.iter().map(|x| x.responses).collect()));
    t.push("cumulative_response_latency_ns", Column::F64(c.iter().map(|x| ps_to_ns(x.round_trip_ps)).collect()));
    t.push("mean_response_latency_ns", Column::F64(c.iter().map(|x| if x.responses == 0 { f64::NAN } else { ps_to_ns(x.round_trip_ps) / x.responses as f64 }).collect()));
}
