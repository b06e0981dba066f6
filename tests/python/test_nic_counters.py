"""NIC counters ([DeSensi19] Sec. 2.3) through the Python API, during and after a run."""
import slingsim


def test_counters_are_readable_between_steps_and_grow():
    sim = slingsim.Simulation("examples/small-dragonfly", ["sim.warmup_ns=0", "sim.duration_ns=20000"])
    seen = []
    for t in (5000, 10000, 20000):
        sim.run_until(t)
        nic = sim.nic_counters()
        seen.append(sum(nic.column("packets_sent").to_pylist()))
        assert nic.num_rows == 144 and {"flits_sent", "stalled_ns", "cumulative_latency_ns"} <= set(nic.column_names)
    assert seen[0] < seen[1] < seen[2]
    result = sim.result()
    assert sum(result.nic.column("packets_sent").to_pylist()) == result.summary["packets_injected"]


def test_result_writes_the_nic_table(tmp_path):
    result = slingsim.run("examples/small-dragonfly", ["sim.duration_ns=5000"])
    out = result.write(tmp_path / "r")
    assert (out / "nic.parquet").exists()
    back = slingsim.Result.read(out)
    assert back.nic.num_rows == result.nic.num_rows
