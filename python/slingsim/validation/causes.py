"""``KNOWN_CAUSES``: the cause the measurements found for each claim that differs from its paper;
``FULL_MODE_READS``: what full mode found where it reads a claim otherwise than quick mode.

An entry is the explanation the report prints beside a row whose ordering fails or whose number is
outside 2x; the numbers behind it are in the recipe's section of docs/experiments.md. A cause is
keyed by its claim's experiment and quantity, so renaming a claim's quantity in ``claims.py`` means
renaming its key here too (tests/python/test_validation.py checks that every key names a claim).
"""
from __future__ import annotations

from typing import Dict, Tuple

KNOWN_CAUSES: Dict[Tuple[str, str], str] = {
    ("node-distance", "8 B RTT/2 on one switch (ns)"):
        "each extra switch adds a 350 ns hop to a 1.77 us host time: 8 B spread 41% against at most 40% (45% with "
        "20 m global cables, a length the papers do not give); 16 KiB keeps 11.5% because the same 0.73 us of path "
        "is over a one-switch time of 6.4 us, 3.3 us of it copies at the assumed 10 GB/s: copies at 7 GB/s give "
        "9.4%, and the papers do not give the hosts' copy rate",
    ("bisection-alltoall", "MPI_Alltoall, fraction of 12.8 TB/s at the largest size"):
        "MPICH's rounds of 32 peers with the ranks in node order allow at most 0.61 of the peak on any network if "
        "the ranks go through them together (the alltoall-scaling row on what the rank order allows); how Shandy "
        "numbered its ranks is not in the papers",
    ("bisection-alltoall", "bisection, fraction of 6.4 TB/s at the largest size"):
        "the alltoall falls just short of the bisection for its rank order and MPICH's blocks of 32 peers (row "
        "above): 4.46 against 4.63 TB/s in quick mode, 5.50 against 5.58 TB/s in full mode (2026-11-30, the "
        "bisection 0.871 of 6.4 TB/s with 16 processes per node); before the hops held only flows a congestion ack "
        "has cut, full mode's alltoall moved more, 5.63 against 5.45 TB/s",
    ("alltoall-scaling", "MPI_Alltoall, fraction of the peak on the most nodes (full: 1024)"):
        "MPICH's rounds of 32 peers with the ranks in node order allow at most 0.61 of the peak on any network "
        "if the ranks go through them together (next row); ours reaches 0.57 (quick) to 0.71 (full) of that bound, and 0.61 of the peak with every peer posted at once "
        "(mpi.alltoall_throttle = 0); the recipe's variants measure the rest (the row on spread ranks)",
    ("alltoall-scaling", "MPI_Alltoall with the ranks spread over the groups, fraction of the peak on the most nodes"):
        "rendezvous above 16 KiB: a message's data waits for its receiver to post the receive, so each block of 32 "
        "peers waits for its receivers' progress too (on 1024 nodes a message spends 28 us in its handshake, 14 of "
        "them waiting for the receiver, before 39 us of data); on bare verbs (no rendezvous) the same ranks reach 0.85 in "
        "full mode (0.83 without congestion management) against MPI's 0.66; on quick's 512 nodes, half of each group's "
        "links sit on switches without those nodes (0.45 there), and without the host's CPU costs MPI gave 0.56 "
        "before congesting flows were held at every hop (then 0.57) "
        "(no rank's CPU is busy with MPI for more than 12% of the run); with every peer posted at once "
        "(mpi.alltoall_throttle = 0) 0.72; with 4 processes per node at 8 KiB per rank pair (eager) 0.77 (0.73 on "
        "2026-11-29, the busiest CPU then working 61% of the run) (8 per node at 4 KiB: 0.69, where blocks of 32 peers span 4 nodes and allow "
        "0.77); where_time_goes in the recipe's --json",
    ("alltoall-scaling", "the most MPICH's rounds allow on the most nodes with our rank order, fraction of the peak"):
        "in node order each round of 32 peers sends a group's bytes to one or two other groups, and bytes beyond a "
        "group pair's 8 direct links cross two global links; the bound takes the rounds as not overlapping, and "
        "our ranks finish a block 1.6 blocks apart on average (the job's collective_rounds), so it reads the "
        "schedule rather than limits the run; the paper's 0.89 suggests its ranks were spread over the groups or "
        "its MPI posted more than 32 peers at once (all at once, the bound is 1.0 in node order too); the papers "
        "give neither",
    ("congestion-heatmap", "Aries, worst congestion impact"):
        "how Aries arbitrates and when its NIC releases its 1,024 outstanding packets are not published; none of "
        "the six pairs of those choices gives both this ordering and Fig. 10's (docs/model.md, \"The two unpublished "
        "Aries choices together\"); the worst case moves most with the assumed tile buffer (full mode: 381x)",
    ("congestion-distribution", "Aries, worst impact with linear placement"):
        "the paper's 100 is a bound on linear placement's worst case, and ours lies below it",
    ("congestion-distribution", "Aries, worst impact with 24 aggressor processes per node over 1, random placement"):
        "with the preset's release rule a node's 24 processes share one block of 1,024 packets and press no harder "
        "than one; the rules that let them press harder make them 3-40 times worse, beyond the paper's Aries "
        "maximum (docs/model.md, \"The two unpublished Aries choices together\"); full mode fails too: "
        "24 over 1 is 0.937 with random placement, 0.89 with linear and 1.21 with interleaved, each maximum the "
        "53-node ember incast (2026-12-01 and 12-02)",
    ("congestion-distribution", "Slingshot, worst impact over the cases"):
        "quick mode runs 96 nodes, all in one Malbec group, and three victims, where the paper's 2.3x is one case "
        "of its full study; the switches cut every incast pair to its share once its first congestion ack is "
        "back, and the persistent 128 KiB incast's pairs stay cut; full mode's "
        "Slingshot points read at most 1.85x, beside the all-to-all with 24 processes per node (2026-11-30)",
    ("shandy-applications", "worst application impact on 1024 nodes"):
        "the switches hold the 767 incast flows per rail into one port to their shares, and each hop lets at most "
        "16 KiB bound for the target onto any one output while other packets pass (the presets' "
        "congestion.hop_hold_bytes), so in full mode LAMMPS with the incast on 75% reads 1.007x, the worst beside "
        "the incast 1.027x (MILC), and the worst is LAMMPS beside the all-to-all on 50% at 1.109x; the limit per hop is assumed, and a persistent incast's cost "
        "to its neighbours follows it steeply (docs/model.md, \"Holding at every hop\"); what left LAMMPS 3.55x "
        "slower on Shandy is not known",
    ("bursty-incast", "worst impact of a bursty incast"):
        "the hops hold only flows a congestion ack has cut (the presets' congestion.hop_hold_cut_flows_only), so a "
        "put that starts after its pair went idle passes them with its first window before the control reacts "
        "(unless packets for its endpoint already wait beside an output), the paper's reason: all of a 16 KiB put, little of an 8 B or 1 KiB one, the first part of a 128 KiB one; our "
        "peak (1.79x, 16 KiB bursts of one every 100 us) is at gaps of 100-250 us, not at the paper's large "
        "bursts and small gaps: with fewer puts under way the cut flows no longer fill a hop's 16 KiB allowance, "
        "so no packet waits beside an output for a new flow to be caught behind, every new flow reaches the port "
        "with its whole put, and the links into the target's switch stall; the allowance is assumed and sets the "
        "result steeply (8 KiB: at most 1.03x; 24 KiB: the victim does not finish beside the persistent incast) "
        "(docs/model.md, \"What the hops' allowance decides\")",
    ("bursty-incast", "medium messages, worst impact with bursts of 100 or more and gaps of 10 us or less"):
        "a burst of 100 or more 16 KiB puts outlasts the victim and reads as persistent (1.147x in full mode, near "
        "the paper's 1.21x), while ours peaks at gaps of 100-200 us (bursts of one every 100 us 1.788x, of ten every "
        "1 ms 1.767x; over seeds 1-5 1.51x and 1.56x on average against persistent 1.14x): every put is a new flow, "
        "and a hop holds one only behind packets of its destination held there; with those gaps the cut flows no "
        "longer overflow the hops' allowance, so the hops send 25% of the incast's congestion acks instead of 49% "
        "and new flows fill the target switch's buffers (docs/model.md, \"What the hops' allowance decides\"); "
        "no allowance tried gives the paper's shape (below 16 KiB the gaps still hurt most, above it the persistent "
        "incast many times); how Rosetta treats a new flow toward a port congested for milliseconds, and how much a "
        "hop may commit to one destination, are not in the papers",
    ("aries-allocation-noise", "inter-group worst round trip over the median"):
        "two chassis have two minimal paths of 42 Gb/s row links where two blades of a chassis have one, which "
        "outweighs a hop for a 16 KiB message; the spread inside a group follows the same links: with 3 row "
        "links instead of 1 the two blades' IQR falls from 0.126 to 0.070 us (seed 1); no 1000x outliers: the "
        "background offers about 1% of the nodes' bandwidth and the run has no OS noise",
    ("aries-time-vs-latency", "QCD of time over QCD of packet latency, smallest size, 10% host noise"):
        "a QCD moves only when more than a quarter of the round trips are held up, and the assumed detours (1 us "
        "on 10% of each CPU) hold up about that share of the 8 B round trips (26-41% by more than 100 ns over five "
        "draws of quick mode's run, 2026-12-02), so 8 B's upper quartile sits where few round trips lie and its "
        "ratio moves from draw to draw: 1.16 / 0.60 / 3.45 / 3.71 / 1.97 over seeds 1-5 (64 KiB 0.87-2.49), "
        "0.95 / 1.12 / 1.73 over seeds 1-3 with 1,000 round trips of 8 B alone; the recipe's 95% interval says "
        "so (quick: 0.59-4.66), so the row reads undecided; 4 KiB's gap is the largest in every draw "
        "(4.19-6.70); the papers give no noise figure that would hold small round trips well past the quartile",
    ("app-aware-routing", "app-aware's worst time over the better static mode"):
        "on the 16 KiB alltoall over 64 nodes app-aware trails adaptive by 25% (420 against 336 us an iteration) "
        "with 16% of its messages on high bias, the mode that takes the alltoall 1.68x as long; the ping-pongs, "
        "the allreduce and halo3d stay within 2.5%. All ranks send at once, so one message's counters say little "
        "about the next; the gap came with a rank's MPI work queueing on one CPU (2026-11-28; adaptive 404.9 -> "
        "335.5 us, app-aware 373.4 -> 420.4), and neither the scaling factors nor reading the whole NIC's "
        "counters moves it; with the NIC taking its messages in turn (nic.message_order = \"interleaved\") it "
        "trails by 8%",
    ("aries-routing-study", "app-aware's worst time over the better static mode"):
        "on Daint's 1024 ranks Bruck's 8 B alltoall sends 4 KiB per rank and round, a heavy exchange, which "
        "DEFAULT wins (high bias 1.17x in both modes; Cori's small tests 0.72-0.91); in full mode app-aware misses "
        "Daint's 512 B alltoall (1.26x), whose messages below its 4 KiB threshold go with high bias undecided, "
        "as the paper's rule has it, and Daint's 16 KiB halo3d (1.15x), a median of 3 iterations: with 9, 1.086x",
    ("aries-applications", "FFT on 256 nodes: high bias over DEFAULT (median)"):
        "not established; ruled out: the message size (scaled as a pencil transpose's, high bias comes level with "
        "DEFAULT on 256 nodes but never ahead) and the allocation's shape; a second minimal candidate over any of a "
        "group pair's links (routing.minimal_paths = \"one-global-hop\") brings it to 1.09 but turns Fig. 7's "
        "across-group ordering the other way",
    ("fitfly-networks", "AMG on Fit Fly at the highest background (ms)"):
        "the background's hot destinations: Fit Fly is not saturated, but a node receiving more than it can take in "
        "backs up into the fabric, as no congestion control runs (here or in CODES), and AMG's collective rounds wait "
        "for their slowest packet; with per-endpoint congestion control AMG kept its idle time (full, before the node "
        "rate: 2.62 against 2.48 ms). Since its nodes send at one link's rate over both rails, as CODES' do "
        "([McGlohon19] Sec. 6.5), it takes three background messages at once rather than two to overrun a node: full "
        "mode 8.39 ms (was 10.2), 3.0x its idle time; without the collectives, which CODES' replay skips, 2.6x. How "
        "CODES' Fit Fly escapes the rest is not established: its output-queued routers hold no more per link than "
        "ours (64 KiB per VC), and ours would need 128 KiB per VC to come to 5.2 ms; the idle time itself pays the "
        "host stack per message",
}
"""What the measurements found behind each claim's difference from the paper, keyed by (experiment,
quantity): the report prints it when the claim's ordering fails or its number is outside 2x, and says
"cause not established yet" for a differing claim with no entry. The recipe's section of
docs/experiments.md has the numbers and how they were measured."""


FULL_MODE_READS: Dict[Tuple[str, str], str] = {
    ("congestion-distribution", "Aries, worst impact with linear placement"):
        "full mode (2026-11-30 and 12-01, Aries' points of panel (A)) reads 381x linear, 344x interleaved and 423x random, "
        "each the ember incast as the 53-node victim: interleaved's worst falls 10% below linear's, so the "
        "ordering fails for interleaved, though point by point interleaved reads higher than linear at 56 of 72 "
        "points (median 1.057) and random at 53 (1.046); linear has one point censored at the 100 ms cap "
        "(sweep3d, at least 99.5x) (docs/experiments.md, congestion-distribution)",
    ("congestion-heatmap", "Aries, worst incast impact with the aggressor on the most nodes over the fewest "
                           "(53/459 over 460/52; quick: 19/77 over 86/10 of 96 nodes)"):
        "full mode (2026-11-28) does not hold where quick (4.0x, 19.4x, 45.3x at 86/10, 48/48, 19/77 of 96 nodes) "
        "does: Aries' worst beside the incast is 21.9x at 460/52, 1.3x at 256/256 and 381x at 53/459. The incast's "
        "target is the aggressor's first node; at 256/256 it sits on router 64, outside the chassis rows of all "
        "the victim's routers (0-63), only 4 of which reach it by a column link, and most senders idle, waiting for "
        "the last responses of their NIC's 1,024-packet block; quick's 48/48 target sits in the chassis row of "
        "every victim router. The paper does not say where its target sat "
        "(docs/experiments.md, congestion-heatmap)",
}
"""What a full-mode run found for a claim whose verdict it reads otherwise than quick mode, keyed as
:data:`KNOWN_CAUSES`: a quick report lists these below its table, so a row that holds in quick mode
does not claim more than the full figure shows."""
