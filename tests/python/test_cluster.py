"""Past one machine: a caller's distributed.Client, the quiet local cluster, and a sweep
through dask-jobqueue on a real one-node Slurm started here (skipped where it cannot start)."""
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from slingsim.cli import main
from slingsim.cluster import BatchCluster, dask_client
from slingsim.sweep import configs_at_loads, run_many, run_summaries

from conftest import SHORT_WINDOW, SMALL

SETS = [arg for item in SHORT_WINDOW for arg in ("--set", item)]


def test_a_callers_client_is_used_and_left_open(small_config):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        configs = configs_at_loads(small_config, [0.11, 0.21])
        through = [s["events"] for s in run_summaries(configs, scheduler=client, cache=False)]
        assert client.status == "running"
        assert len(client.run(lambda: 1)) == 1  # still usable
    assert through == [r.summary["events"] for r in run_many(configs, scheduler="sync", cache=False)]


def test_the_local_cluster_listens_on_loopback_only():
    import psutil

    with dask_client(None, 2) as client:
        assert client.scheduler.address.startswith("inproc://")
        me = psutil.Process()
        sockets = me.net_connections if hasattr(me, "net_connections") else me.connections  # psutil < 6
        mine = [c for c in sockets(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert mine, "the cluster's HTTP servers should listen somewhere"
    assert all(c.laddr.ip in ("127.0.0.1", "::1") for c in mine), mine
    assert all(c.laddr.port != 8787 for c in mine)


def test_two_local_clusters_at_once_print_no_port_warning(capfd):
    with dask_client(None, 1), dask_client(None, 1):
        pass
    captured = capfd.readouterr()
    assert "already in use" not in captured.err + captured.out


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "pbs"}, "not supported; choose one of: slurm"),
    ({"cores": 0}, "cores"),
    ({"jobs": 1.5}, "jobs"),
    ({"memory": "lots"}, "memory"),
    ({"walltime": "1h"}, "walltime"),
    ({"start_timeout_s": 0}, "start_timeout_s"),
])
def test_bad_batch_settings_name_the_setting(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BatchCluster(**kwargs)


def test_profiles_are_read_and_the_command_line_wins(tmp_path):
    profile = tmp_path / "slurm.toml"
    profile.write_text('[slurm]\njobs = 3\ncores = 4\nmemory = "8GB"\nwalltime = "02:00:00"\nqueue = "batch"\n')
    spec = BatchCluster.from_profile(profile, cores=2)
    assert (spec.kind, spec.jobs, spec.cores, spec.memory, spec.walltime) == ("slurm", 3, 2, "8GB", "02:00:00")
    assert spec.options == {"queue": "batch"}
    with pytest.raises(FileNotFoundError, match="no such file"):
        BatchCluster.from_profile(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("cores = 4\n")
    with pytest.raises(ValueError, match=r"\[slurm\]"):
        BatchCluster.from_profile(tmp_path / "bad.toml")


@pytest.mark.parametrize("args, message", [
    (["--jobs", "2"], "--jobs: only with --cluster"),
    (["--cluster", "slurm", "--scheduler", "sync"], "--scheduler and --cluster"),
    (["--cluster", "slurm", "--memory", "lots"], "memory"),
    (["--cluster-profile", "nowhere.toml"], "nowhere.toml"),
])
def test_cluster_options_are_checked(args, message, tmp_path, capsys):
    code = main(["sweep-load", SMALL, "--loads", "0.1", *SETS, "--out", str(tmp_path / "o"), *args])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


# A one-node Slurm of our own: slurmctld and slurmd on this machine, auth/none,
# state in a temporary folder, on free ports; the tests point SLURM_CONF at it.
SLURM_CONF = """\
ClusterName=slingsimtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _slurm_unavailable():
    """Why a local Slurm cannot start here, or None."""
    missing = [b for b in ("slurmctld", "slurmd", "sbatch", "sinfo") if shutil.which(b) is None]
    if missing:
        return (f"Slurm is not installed ({', '.join(missing)} not found); .ci/run installs Debian's "
                "slurmctld, slurmd and slurm-client")
    if os.geteuid() != 0:
        return "starting slurmd needs root"
    try:
        import dask_jobqueue  # noqa: F401
    except ImportError:
        return "dask-jobqueue is not installed (pip install 'slingsim[cluster]')"
    return None


@pytest.fixture(scope="module")
def local_slurm(tmp_path_factory):
    """SLURM_CONF of a one-node Slurm running for this module's tests; the daemons are stopped afterwards."""
    reason = _slurm_unavailable()
    if reason:
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"):
        (folder / sub).mkdir()
    conf = folder / "slurm.conf"
    host = socket.gethostname().split(".")[0]
    conf.write_text(SLURM_CONF.format(host=host, dir=folder, ctld_port=_free_port(),
                                      slurmd_port=_free_port(), cpus=os.cpu_count() or 1))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    commands = (["slurmctld", "-D", "-f", str(conf)], ["slurmd", "-D", "-f", str(conf), "-N", host])
    daemons = [subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                stderr=open(folder / f"{command[0]}.stderr", "w"))
               for command in commands]
    try:
        deadline = time.monotonic() + 30
        state = ""
        while time.monotonic() < deadline:
            done = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True)
            state = done.stdout.strip()
            if state == "idle":
                break
            if any(d.poll() is not None for d in daemons):
                break
            time.sleep(0.5)
        if state != "idle":
            logs = "".join(p.read_text()[-600:] for p in sorted(folder.glob("*.log")) + sorted(folder.glob("*.stderr")))
            pytest.skip(f"the local Slurm did not start (node state {state!r}): {logs}")
        yield conf
    finally:
        for daemon in daemons:
            daemon.terminate()
        for daemon in daemons:
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()


def _batch_jobs_run(conf: Path) -> int:
    """Batch jobs slurmd has launched so far."""
    log = conf.parent / "slurmd.log"
    return log.read_text().count("Launching batch job") if log.is_file() else 0


def test_a_sweep_runs_as_slurm_jobs_through_dask_jobqueue(local_slurm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SLURM_CONF", str(local_slurm))
    monkeypatch.chdir(tmp_path)  # sbatch writes the jobs' slurm-N.out files here
    before = _batch_jobs_run(local_slurm)
    out = tmp_path / "sweep"
    args = ["sweep-load", SMALL, "--loads", "0.12,0.22", *SETS, "--cache", str(tmp_path / "store"), "--json",
            "--quiet", "--out", str(out)]
    assert main([*args, "--cluster", "slurm", "--jobs", "1", "--cores", "1", "--memory", "1GB",
                 "--walltime", "00:10:00"]) == 0
    import json

    points = json.loads(capsys.readouterr().out)["points"]
    assert [p["cached"] for p in points] == [False, False]
    assert _batch_jobs_run(local_slurm) > before, "no batch job was launched"
    serial = run_summaries(configs_at_loads(_small(), [0.12, 0.22]), scheduler="sync", cache=False)
    assert [p["accepted_load"] for p in points] == [s["accepted_load"] for s in serial]


def test_a_cluster_profile_file_starts_the_same_cluster(local_slurm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SLURM_CONF", str(local_slurm))
    monkeypatch.chdir(tmp_path)
    profile = tmp_path / "slurm.toml"
    profile.write_text(f'[slurm]\ncores = 1\nmemory = "1GB"\nwalltime = "00:10:00"\nstart_timeout_s = 120\n'
                       f'log_directory = "{tmp_path / "logs"}"\n')
    before = _batch_jobs_run(local_slurm)
    assert main(["sweep-load", SMALL, "--loads", "0.13", *SETS, "--no-cache", "--quiet", "--json",
                 "--out", str(tmp_path / "o"), "--cluster-profile", str(profile)]) == 0
    assert _batch_jobs_run(local_slurm) > before
    assert any((tmp_path / "logs").glob("*.err")), "the profile's log_directory reached the job script"


def _small():
    from slingsim.config import apply_overrides, load_config

    return apply_overrides(load_config(SMALL), SHORT_WINDOW)
