"""The recipes ``slingsim experiment`` and ``slingsim validate`` run: name -> (what it reproduces, module in
``slingsim.experiments``, recipe function). Every recipe has the signature ``(out_dir, quick, scheduler, workers,
progress=..., cache=...)`` and returns a table whose checks hold its figure's key numbers."""
from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable, List

EXPERIMENTS = {
    "congestion-heatmap": ("[DeSensi20] Fig. 9, congestion impact of incast and all-to-all aggressors on victim jobs, "
                           "Slingshot (Malbec) against Aries (Crystal)", "congestion_heatmap", "run_congestion_heatmap"),
    "bursty-incast": ("[DeSensi20] Fig. 12, congestion impact of a bursty incast (message size x burst size x gap) "
                      "on a 128 B alltoall on Slingshot (Malbec)", "bursty_incast", "run_bursty_incast"),
    "tailbench": ("[DeSensi20] Fig. 8, request latency (median, p95, p99) of Silo, Xapian, Img-dnn and Sphinx alone "
                  "and beside a 128 KiB incast, Slingshot (Malbec) against Aries (Crystal)", "tailbench",
                  "run_tailbench"),
    "traffic-classes-latency": ("[DeSensi20] Fig. 13, an 8 B allreduce beside a 256 KiB alltoall on Malbec tapered to "
                                "25%, in the same traffic class or its own", "traffic_classes",
                                "run_traffic_classes_latency"),
    "traffic-classes-bandwidth": ("[DeSensi20] Fig. 14, two bisection jobs in one class or in TC1 (min 80%) and TC2 "
                                  "(min 10%): bandwidth over time", "traffic_classes",
                                  "run_traffic_classes_bandwidth"),
    "congestion-distribution": ("[DeSensi20] Fig. 10, distribution of congestion impacts over victim/aggressor "
                                "combinations by placement, aggressor PPN and node count, Slingshot against Aries",
                                "congestion_distribution", "run_congestion_distribution"),
    "node-distance": ("[DeSensi20] Fig. 4, latency (RTT/2) and bandwidth between two nodes on one switch, in one "
                      "group and in two groups of an idle Malbec, 8 B to 2 MiB", "node_distance", "run_node_distance"),
    "switch-latency": ("[DeSensi20] Fig. 2, switch latency as 2-hop minus 1-hop RTT/2 of 8 B RoCE ping-pongs from "
                       "sampled nodes of an idle Malbec", "switch_latency", "run_switch_latency"),
    "software-layers": ("[DeSensi20] Fig. 5, RTT/2 by message size through verbs, libfabric and MPI between two "
                        "nodes on one switch of an idle Malbec", "software_layers", "run_software_layers"),
    "nic-bandwidth": ("[Roweth] Fig. 5, MPI point-to-point bandwidth of 16 processes per node with one Cassini NIC "
                      "per node or two", "nic_bandwidth", "run_nic_bandwidth"),
    "packet-latency-background": ("[Roweth] Fig. 2 and Sec. II-F, trace packet latency beside an incast with and "
                                  "without Slingshot's congestion management on Malbec, and the RFC 2544 frame rate "
                                  "and port-to-port latency of one switch", "packet_latency_background",
                                  "run_packet_latency_background"),
    "rma-bandwidth": ("[Roweth] Fig. 6, SHMEM put bandwidth against transfer size for 1-64 processes on one Cassini "
                      "NIC: half the 25 GB/s peak near 128 B with 16 or more", "rma_bandwidth", "run_rma_bandwidth"),
    "mpi-latency": ("[Roweth] Fig. 7, MPI latency against message size between two nodes on one switch with "
                    "Cassini NICs: flat to 96 B, a DMA read more above", "mpi_latency", "run_mpi_latency"),
    "matching-rate": ("[Roweth] Fig. 8, MPI message rate against failed match attempts per message for 1-16 pairs "
                      "on two nodes, Cassini NIC matching (slingshot-max) against software matching (Malbec's RoCE "
                      "host)", "matching_rate", "run_matching_rate"),
    "message-rate": ("[Roweth] Fig. 9, aggregate message rates of 1-32 processes per node on one Cassini NIC in "
                     "the Sandia test's four patterns (single direction, pair-based, pre-posted, all-start) beside "
                     "the simple message-rate test", "sandia_message_rate", "run_message_rate"),
    "alltoall-scaling": ("[Roweth] Fig. 3, MPI_Alltoall bandwidth on Shandy against message size for 64 to "
                         "1024 nodes spread over all 8 groups, against the 12.8 TB/s peak; at the most nodes also with the ranks "
                         "spread over the groups, on bare verbs, without congestion management, and with 4 processes per node",
                         "alltoall_scaling",
                         "run_alltoall_scaling"),
    "bisection-alltoall": ("[DeSensi20] Fig. 6, bisection and MPI_Alltoall bandwidth on the 1024 nodes of Shandy "
                           "against their 6.4 and 12.8 TB/s peaks", "bisection_alltoall", "run_bisection_alltoall"),
    "shandy-applications": ("[DeSensi20] Fig. 11, congestion impact on MILC, HPCG, LAMMPS and FFT proxies sharing all "
                            "1024 Shandy nodes with an incast or all-to-all aggressor, random placement",
                            "shandy_applications", "run_shandy_applications"),
    "app-aware-routing": ("[DeSensi19] Sec. 5, application-aware routing against ADAPTIVE and ADAPTIVE WITH HIGH BIAS "
                          "on Aries (Crystal): ping-pong, allreduce, alltoall, halo3d", "app_aware_routing",
                          "run_app_aware_routing"),
    "aries-pingpong-routing": ("[DeSensi19] Fig. 7, 4 MiB ping-pong inside one group and across two of Aries "
                               "(Crystal) under ADAPTIVE and ADAPTIVE WITH HIGH BIAS: time, NIC latency L, stalls s "
                               "and the Eq. 2 estimate", "aries_pingpong_routing", "run_aries_pingpong_routing"),
    "aries-routing-study": ("[DeSensi19] Figs. 8-9, microbenchmarks under DEFAULT, ADAPTIVE WITH HIGH BIAS and "
                            "application-aware routing on fragmented allocations beside other jobs: 1024 nodes of "
                            "Piz Daint (257 routers, 6 groups) and 64 of Cori (33 routers, 5 groups)",
                            "aries_routing_study", "run_aries_routing_study"),
    "aries-applications": ("[DeSensi19] Fig. 10, MILC, HPCG, LAMMPS and FFT proxies on 256 nodes of Piz Daint and FFT "
                           "on 64 under DEFAULT, ADAPTIVE WITH HIGH BIAS and application-aware routing, fragmented "
                           "allocations beside other jobs", "aries_applications", "run_aries_applications"),
    "aries-allocation-noise": ("[DeSensi19] Fig. 3, 16 KiB ping-pong between two nodes of one blade, two blades, two "
                               "chassis and two groups of Piz Daint beside other jobs: median, quartiles, IQR, "
                               "outliers by distance", "aries_allocation_noise", "run_aries_allocation_noise"),
    "aries-model-check": ("[DeSensi19] Sec. 2.4, Eq. 2 from the NIC counters against a ping-pong's time in 40 "
                          "fragmented two-node allocations of Piz Daint beside other jobs, 128 B to 16 MiB: "
                          "correlation per size", "aries_model_check", "run_aries_model_check"),
    "aries-time-vs-latency": ("[DeSensi19] Fig. 5, how much a ping-pong's time and its messages' latency vary (QCD) "
                              "by size between two groups of Piz Daint beside other jobs, without host noise and "
                              "with OS detours on 1% and 10% of the CPU", "aries_time_vs_latency",
                              "run_aries_time_vs_latency"),
    "aries-node-alltoall": ("[DeSensi19] Fig. 4, the time distribution of an MPI_Alltoall of 8 processes on one "
                            "Piz Daint node by size, no packet in the network, without host noise and with OS "
                            "detours on 1% and 10% of the CPU", "aries_node_alltoall", "run_aries_node_alltoall"),
    "aries-idle-counters": ("[DeSensi19] Table 1, router counters (incoming flits, stalled cycles) of an idle 16-node "
                            "job on 5 Piz Daint routers beside other jobs, for a wait and one twice as long",
                            "aries_idle_counters", "run_aries_idle_counters"),
    "fitfly-rails": ("[McGlohon19] Fig. 3, accepted vs offered load of Slim Fly and Fit Fly with 2/4/8 rails",
                     "fitfly_rails", "run_fitfly_rails"),
    "fitfly-networks": ("[McGlohon19] Figs. 4-9 and Table 3, AMG and MultiGrid beside 0-72.5% background on Slim Fly, "
                        "Fit Fly, Dragonfly and Megafly, and the equalised-bandwidth Fit Fly FDR and Slim Fly HDR: "
                        "maximum communication time, mean packet latency, mean hops", "fitfly_networks",
                        "run_fitfly_networks"),
}
"""Experiment name -> (what it reproduces, module in slingsim.experiments, recipe function)."""


def recipe(name: str) -> Callable[..., Any]:
    """The recipe function of experiment ``name``."""
    if name not in EXPERIMENTS:
        raise ValueError(f"experiment: unknown name {name!r}; use one of {sorted(EXPERIMENTS)}")
    _, module, function = EXPERIMENTS[name]
    return getattr(importlib.import_module(f"slingsim.experiments.{module}"), function)


def with_victims() -> List[str]:
    """The experiments whose victims can run under a statistical stopping rule (their recipe takes
    ``stop_rule``): the victim/aggressor studies that repeat a victim's iterations."""
    return sorted(name for name in EXPERIMENTS if "stop_rule" in inspect.signature(recipe(name)).parameters)


def recipe_with_options(name: str, stop_rule: Any = None) -> Callable[..., Any]:
    """The recipe of ``name`` with the options given bound to it; raises ValueError naming the experiments
    that take an option ``name`` does not."""
    run = recipe(name)
    if stop_rule is None:
        return run
    if "stop_rule" not in inspect.signature(run).parameters:
        raise ValueError(f"--stop-rule: experiment {name!r} has no victim that repeats its iterations; the "
                         f"experiments that take it are {with_victims()}")
    return lambda *args, **kwargs: run(*args, stop_rule=stop_rule, **kwargs)
