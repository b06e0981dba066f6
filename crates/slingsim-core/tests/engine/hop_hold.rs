//! Congesting flows held at every hop (`congestion.hop_hold_bytes`,
//! [Roweth] Sec. II-E): with a window that never falls below one packet,
//! an incast's flows keep a packet each in the fabric; held at their
//! ingress switch only, those packets fill the buffers the victim shares
//! with them, while held at every hop, with other packets passing them,
//! they do not.

use super::congestion_management::{run, victim_and_incast, victim_latency};
use serde_json::{json, Value};

/// `congestion_management`'s victim beside an incast, with every other node
/// of the 80 (75 of them) putting 4 MB into node 0, so a packet per flow is
/// 300 KB, more than switch 0's input buffers hold. `floor` is the smallest
/// window a cut flow keeps, `hold` the bytes per output and destination
/// each hop commits.
fn victim_beside_incast(incast: bool, floor: u64, hold: u64) -> Value {
    let mut cfg = victim_and_incast("slingshot", incast);
    if incast {
        let aggressors: Vec<u32> = (0..80).filter(|n| ![1, 6, 10, 14].contains(n)).collect();
        cfg["traffic"][1]["nodes"] = json!({"list": aggressors});
    }
    cfg["congestion"]["min_window_bytes"] = json!(floor);
    cfg["congestion"]["hop_hold_bytes"] = json!(hold);
    cfg
}

const PACKET: u64 = 4178; // a full RoCE frame: the one-packet floor

#[test]
fn holding_at_every_hop_keeps_one_packet_per_flow_from_slowing_the_victim() {
    let alone = victim_latency(&run(&victim_beside_incast(false, PACKET, 16_384)));
    let ingress_only = run(&victim_beside_incast(true, PACKET, 0));
    let every_hop = run(&victim_beside_incast(true, PACKET, 16_384));
    let (slow, held) = (victim_latency(&ingress_only), victim_latency(&every_hop));
    assert!(slow > 2.0 * alone, "held at the ingress only, the floor's packets slow the victim: {slow:.0} ns, {alone:.0} ns alone");
    assert!(held < 1.5 * alone, "held at every hop the victim passes them: {held:.0} ns, {alone:.0} ns alone");
    let c = &every_hop["congestion"];
    assert!(c["packets_held_at_hops"].as_u64().unwrap() > 100, "congesting packets waited beside outputs: {c}");
    // Each held packet told its flow's ingress switch, which cut the flow.
    assert!(c["hop_congestion_acks"].as_u64().unwrap() > 0, "{c}");
    assert!(c["throttled_pairs"].as_u64().unwrap() > 0, "{c}");
    // A hop's ack leaves from the hop, nearer the ingress switch than the
    // congested port: on average it gets there sooner than the port's.
    let delay = |k: &str| c[k].as_f64().unwrap();
    let (hop, port) = (delay("hop_congestion_ack_delay_mean_ns"), delay("port_congestion_ack_delay_mean_ns"));
    assert!(hop > 0.0 && port > 0.0, "{c}");
    assert!(hop < port, "a hop's congestion ack takes {hop:.0} ns on average, the port's {port:.0} ns: {c}");
    assert!(delay("hop_congestion_ack_delay_max_ns") >= hop, "{c}");
    assert_eq!(every_hop["packets_conserved"], true);
    assert!(ingress_only["congestion"].get("packets_held_at_hops").is_none(), "off: not reported");
    // The incast still gets its port: holding moves where it waits, not what it sends.
    let rate = |s: &Value| s["traffic"]["incast"]["accepted_load"].as_f64().unwrap();
    assert!(rate(&every_hop) > 0.9 * rate(&ingress_only), "{} against {}", rate(&every_hop), rate(&ingress_only));
}

#[test]
fn held_packets_are_in_flight_when_the_run_ends() {
    let s = run(&victim_beside_incast(true, PACKET, 4_096));
    assert!(s["congestion"]["hop_held_max_packets"].as_u64().unwrap() > 0, "{}", s["congestion"]);
    assert_eq!(s["packets_conserved"], true, "{s}");
    assert_eq!(s["bytes_conserved"], true, "{s}");
    assert_eq!(s["end_reason"], "time_limit");
}

#[test]
fn holding_is_deterministic_and_idle_without_congestion() {
    let cfg = victim_beside_incast(true, PACKET, 16_384);
    let (mut a, mut b) = (run(&cfg), run(&cfg));
    for s in [&mut a, &mut b] {
        s.as_object_mut().unwrap().remove("engine_wall_s");
        s.as_object_mut().unwrap().remove("build_s");
    }
    assert_eq!(a, b);
    // Without a congested port nothing is held, and the run is the one without holding.
    let mut quiet = run(&victim_beside_incast(false, PACKET, 16_384));
    let mut off = run(&victim_beside_incast(false, PACKET, 0));
    assert_eq!(quiet["congestion"]["packets_held_at_hops"], 0);
    for s in [&mut quiet, &mut off] {
        let o = s.as_object_mut().unwrap();
        o.remove("engine_wall_s");
        o.remove("build_s");
        for k in ["hop_held_packets", "hop_held_max_packets", "packets_held_at_hops", "hop_congestion_acks", "port_congestion_ack_delay_mean_ns", "port_congestion_ack_delay_max_ns", "hop_congestion_ack_delay_mean_ns", "hop_congestion_ack_delay_max_ns"] {
            o["congestion"].as_object_mut().unwrap().remove(k);
        }
    }
    assert_eq!(quiet, off);
}

/// The incast of [`victim_beside_incast`] as 16 KiB messages, each sender
/// offering 5% of its rate (together almost four times the target's port):
/// one sender's messages are about 26 us apart, so each of its flows has
/// gone idle, and been forgotten, before the next starts.
fn victim_beside_restarting_incast(incast: bool, cut_flows_only: bool) -> Value {
    let mut cfg = victim_beside_incast(incast, PACKET, 16_384);
    if incast {
        let t = cfg["traffic"][1].as_object_mut().unwrap();
        t.remove("flow_bytes");
        t.insert("message_bytes".into(), json!(16_384));
        t.insert("load".into(), json!(0.05));
    }
    cfg["congestion"]["hop_hold_cut_flows_only"] = json!(cut_flows_only);
    cfg
}

#[test]
fn hops_that_know_only_cut_flows_let_restarting_flows_pass() {
    // [DeSensi20] Sec. III-C: for medium messages "some congestion builds
    // up before the congestion control algorithm detects and reacts to it".
    // Here each new flow's packets pass the hops until its first
    // congestion ack is back; what that costs a victim depends on what it
    // shares with them (`bursty-incast` measures it on Malbec).
    let alone = victim_latency(&run(&victim_beside_restarting_incast(false, true)));
    let every_flow = run(&victim_beside_restarting_incast(true, false));
    let cut_only = run(&victim_beside_restarting_incast(true, true));
    let count = |s: &Value| s["congestion"]["packets_held_at_hops"].as_u64().unwrap();
    assert!(count(&every_flow) > 500, "{}", every_flow["congestion"]);
    assert!((count(&cut_only) as f64) < 0.9 * count(&every_flow) as f64, "new flows pass the hops: {} held against {}", count(&cut_only), count(&every_flow));
    assert!(victim_latency(&every_flow) < 1.5 * alone, "every flow held: {:.0} ns against {alone:.0} ns alone", victim_latency(&every_flow));
    for s in [&every_flow, &cut_only] {
        assert_eq!(s["packets_conserved"], true);
        // Each sender restarts: more flows were cut than there are senders.
        assert!(s["congestion"]["flows_ever_throttled"].as_u64().unwrap() > 76, "{}", s["congestion"]);
    }
    // A persistent incast's flows stay cut, so the hops hold them either way.
    let mut persistent = victim_beside_incast(true, PACKET, 16_384);
    persistent["congestion"]["hop_hold_cut_flows_only"] = json!(true);
    let p = run(&persistent);
    assert!(victim_latency(&p) < 1.5 * alone, "persistent incast, cut flows held: {:.0} ns against {alone:.0} ns", victim_latency(&p));
    assert!(count(&p) > 100, "{}", p["congestion"]);
}
