"""Topology analytics through the API and CLI: deadlock check, GraphML, cost."""
import json
import xml.etree.ElementTree as ET

import slingsim
from slingsim import cli


def test_every_routing_is_deadlock_free_on_malbec():
    t = slingsim.topology("slingshot-malbec", check_deadlock=True)
    assert t["deadlock_free"] == {name: True for name in ("minimal", "valiant", "ugal", "par", "minimal-adaptive")}
    assert t["deadlock"]["minimal"]["vcs"] == 3
    assert t["deadlock"]["valiant"]["vcs"] == 5
    assert all(r["cycle"] == [] for r in t["deadlock"].values())


def test_cost_uses_table4_unit_prices():
    t = slingsim.topology("slingshot-malbec")
    links = sum(t["links"].values())
    assert t["cost_usd"] == links * 134 + t["switches"] * 25633
    cheap = slingsim.topology("slingshot-malbec", ["cost.link_usd=1", "cost.router_usd=0"])
    assert cheap["cost_usd"] == links


def test_graphml_lists_switches_endpoints_and_links(tmp_path):
    out = tmp_path / "malbec.graphml"
    assert cli.main(["topo", "slingshot-malbec", "--graphml", str(out), "--json"]) in (0, None)
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    graph = ET.parse(out).getroot().find("g:graph", ns)
    nodes = graph.findall("g:node", ns)
    edges = graph.findall("g:edge", ns)
    t = slingsim.topology("slingshot-malbec")
    assert len(nodes) == t["switches"] + t["nodes"]
    assert len(edges) == sum(t["links"].values())


def test_topo_check_deadlock_json(capsys):
    assert cli.main(["topo", "slingshot-malbec", "--check-deadlock", "--json"]) in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert all(out["deadlock_free"].values())
    assert out["planes"] == 1 and "cost_usd" in out
