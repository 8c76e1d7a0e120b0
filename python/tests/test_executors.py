"""``bloxsim.sweep(..., executor=...)``: the same sweep through any executor (the standard
library's process pool, Dask's ``LocalCluster``, submitit on Slurm) gives the local sweep's
table, and with ``out`` its files byte for byte.

The submitit test needs a Slurm cluster: it runs only under ``BLOX_SLURM=1`` (the CI step that
starts the local 4-node cluster, ``.ci/run``) and is reported as skipped, with that reason,
elsewhere; under ``BLOX_SLURM=1`` without a working Slurm it fails.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import bloxsim

#: 3 policies x 2 loads x 4 seeds = 24 small runs.
SWEEP = dict(policy="fifo,las,srtf", load="2,4", seed="1..4", track="0..200", progress=False)


class ExecLas:
    """LAS on attained GPU-seconds, as a registered Python policy (module level: it pickles by
    reference to a worker)."""

    def schedule(self, ctx):
        return [j for _, _, j in sorted(zip(ctx.priority, ctx.attained_gpu_s, ctx.job_id))]


class Boom:
    def schedule(self, ctx):
        raise RuntimeError("boom in a worker")


@pytest.fixture(scope="module")
def local():
    return bloxsim.sweep(**SWEEP)


def same_files(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir() if p.is_file())
    assert names == sorted(p.name for p in b.iterdir() if p.is_file())
    for n in names:
        assert (a / n).read_bytes() == (b / n).read_bytes(), n


def test_process_pool_gives_the_local_table_and_files(tmp_path, local):
    with concurrent.futures.ProcessPoolExecutor(2) as ex:
        table = bloxsim.sweep(executor=ex, **SWEEP)
        assert len(table) == 24
        assert table.equals(local)
        # With `out`: the workers write the runs, this process merges; the CLI-compatible files
        # are the local sweep's byte for byte.
        bloxsim.sweep(out=tmp_path / "local", **SWEEP)
        t2 = bloxsim.sweep(executor=ex, out=tmp_path / "pool", **SWEEP)
    assert t2.equals(local)
    same_files(tmp_path / "local", tmp_path / "pool")
    assert len(list((tmp_path / "pool" / "runs").iterdir())) == 24


def test_dask_local_cluster_gives_the_local_table(tmp_path, local):
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc, Client(lc) as client:
        table = bloxsim.sweep(executor=client.get_executor(), **SWEEP)
        assert table.equals(local)
        # The Client itself also has submit() -> futures with .result().
        t2 = bloxsim.sweep(executor=client, out=tmp_path / "dask", **SWEEP)
    assert t2.equals(local)
    bloxsim.sweep(out=tmp_path / "local", **SWEEP)
    same_files(tmp_path / "local", tmp_path / "dask")


def test_registered_python_components_travel_with_the_tasks():
    bloxsim.register_policy("exec-las", ExecLas)
    try:
        small = dict(workload="poisson", jobs=60, load=4, cluster="2x4", seed="1..3", progress=False)
        here = bloxsim.sweep(policy="las,exec-las", **small)
        with concurrent.futures.ProcessPoolExecutor(2, mp_context=__import__("multiprocessing").get_context("spawn")) as ex:
            there = bloxsim.sweep(policy="las,exec-las", executor=ex, **small)
    finally:
        bloxsim.unregister("exec-las")
    assert there.equals(here)
    # The Python LAS is the stock LAS, run by run.
    cols = ["avg_jct_s", "p99_jct_s", "makespan_s"]
    py = there[there.policy == "exec-las"][cols].reset_index(drop=True)
    rust = there[there.policy == "las"][cols].reset_index(drop=True)
    assert py.equals(rust)


def test_a_failing_run_is_a_sweep_error_naming_it(tmp_path):
    bloxsim.register_policy("exec-boom", Boom)
    try:
        with concurrent.futures.ProcessPoolExecutor(2) as ex:
            with pytest.raises(bloxsim.SweepError, match=r"sweep run 1 \(.*exec-boom.*\) failed.*boom in a worker") as e:
                bloxsim.sweep(policy="fifo,exec-boom", workload="poisson", jobs=40, load=4, cluster="2x4",
                              out=tmp_path / "out", executor=ex, progress=False)
    finally:
        bloxsim.unregister("exec-boom")
    assert isinstance(e.value.__cause__, bloxsim.PolicyError)
    # The run that worked is recorded; the failed one left no run.json.
    runs = sorted(p.name for p in (tmp_path / "out" / "runs").iterdir() if (p / "run.json").is_file())
    assert len(runs) == 1 and "fifo" in runs[0]


def test_bad_executors_and_flags_are_refused():
    with pytest.raises(TypeError, match="submit"):
        bloxsim.sweep(executor=object(), **SWEEP)
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        with pytest.raises(bloxsim.ConfigError, match="threads"):
            bloxsim.sweep(executor=ex, threads=2, **SWEEP)


def test_submitit_on_the_local_slurm_cluster(tmp_path, local):
    if os.environ.get("BLOX_SLURM") != "1":
        pytest.skip("runs only under BLOX_SLURM=1 (the CI step with the local Slurm cluster, .ci/run)")
    import submitit

    assert shutil.which("sbatch"), "BLOX_SLURM=1 but sbatch is not on PATH"
    info = subprocess.run(["sinfo", "-h", "-o", "%a"], capture_output=True, text=True)
    assert info.returncode == 0 and "up" in info.stdout, f"BLOX_SLURM=1 but Slurm is not running: {info.stderr}"
    ex = submitit.AutoExecutor(folder=tmp_path / "submitit", cluster="slurm")
    ex.update_parameters(timeout_min=10, cpus_per_task=1, slurm_job_name="bloxsim-sweep")
    table = bloxsim.sweep(executor=ex, **SWEEP)
    assert table.equals(local)
    t2 = bloxsim.sweep(executor=ex, out=tmp_path / "slurm", **SWEEP)
    assert t2.equals(local)
    bloxsim.sweep(out=tmp_path / "local", **SWEEP)
    same_files(tmp_path / "local", tmp_path / "slurm")
