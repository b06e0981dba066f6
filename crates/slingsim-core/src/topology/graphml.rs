//! GraphML export of a built network: switches and endpoints as nodes,
//! links (both directions of a cable) as undirected edges, for Gephi,
//! NetworkX (`networkx.read_graphml`) or yEd.

use super::Topology;
use crate::ids::SwitchId;
use crate::network::{End, Network};
use std::fmt::Write;

/// The network as a GraphML document.
pub fn to_graphml(topo: &Topology, net: &Network) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n");
    for (id, on, name, ty) in [
        ("d0", "node", "type", "string"),
        ("d1", "node", "group", "int"),
        ("d2", "node", "node", "int"),
        ("d3", "edge", "kind", "string"),
        ("d4", "edge", "bandwidth_bps", "double"),
        ("d5", "edge", "latency_ns", "double"),
    ] {
        let _ = writeln!(out, "  <key id=\"{id}\" for=\"{on}\" attr.name=\"{name}\" attr.type=\"{ty}\"/>");
    }
    let _ = writeln!(out, "  <graph id=\"{}\" edgedefault=\"undirected\">", topo.family());
    for s in (0..net.switches() as u32).map(SwitchId) {
        let _ = writeln!(out, "    <node id=\"s{s}\"><data key=\"d0\">switch</data><data key=\"d1\">{}</data></node>", topo.group(s));
    }
    for (e, &up) in net.endpoint_up.iter_ids() {
        if !up.is_none() {
            let _ = writeln!(out, "    <node id=\"e{e}\"><data key=\"d0\">endpoint</data><data key=\"d2\">{}</data></node>", net.endpoint_node[e]);
        }
    }
    let name = |x: End| match x {
        End::Switch { switch, .. } => format!("s{switch}"),
        End::Endpoint(e) => format!("e{e}"),
    };
    // Builders add the two directions of a cable one after the other.
    for (i, ch) in net.channels.iter().enumerate().step_by(2) {
        let _ = writeln!(
            out,
            "    <edge id=\"l{}\" source=\"{}\" target=\"{}\"><data key=\"d3\">{}</data><data key=\"d4\">{}</data><data key=\"d5\">{}</data></edge>",
            i / 2,
            name(ch.src),
            name(ch.dst),
            ch.kind.name(),
            ch.rate.bps(),
            crate::units::ps_to_ns(ch.latency)
        );
    }
    out.push_str("  </graph>\n</graphml>\n");
    out
}

/// GraphML of the topology of a config (JSON text).
pub fn graphml_json(text: &str) -> crate::error::Result<String> {
    let cfg = crate::config::Config::from_json(text)?;
    let (topo, net) = Topology::build(&cfg)?;
    Ok(to_graphml(&topo, &net))
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_nodes_and_edges() {
        let g = super::graphml_json(r#"{"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1}}"#).unwrap();
        assert_eq!(g.matches("<node ").count(), 6 + 12);
        // 12 terminal + 3 local + 3 global cables.
        assert_eq!(g.matches("<edge ").count(), 18);
        assert_eq!(g.matches(">global<").count(), 3);
    }
}
