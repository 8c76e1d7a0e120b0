"""Python runs against the `blox-sim` binary: the same files, byte for byte.

Each case runs the CLI with `--out out` in one folder and the same settings through `bloxsim`
into `out` in another (the same relative path, so `summary.json`'s recorded `out` matches
too), then compares every file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bloxsim

from conftest import same_files


def in_dir(path: Path):
    class Chdir:
        def __enter__(self):
            self.old = os.getcwd()
            path.mkdir(parents=True, exist_ok=True)
            os.chdir(path)

        def __exit__(self, *exc):
            os.chdir(self.old)

    return Chdir()


CASES = {
    # Blox's README configuration.
    "blox-readme": (
        ["--semantics", "blox", "--policy", "las", "--load", "1", "--track", "3000..4000"],
        dict(semantics="blox", policy="las", load=1, track="3000..4000"),
    ),
    # Exact semantics, multi-GPU Poisson jobs, admission and placement with parameters.
    "exact-poisson": (
        [
            "--workload", "poisson", "--load", "6", "--jobs", "400", "--cluster", "8x4",
            "--admission", "load-based:1.2", "--policy", "tiresias:queues=2,threshold=3600",
            "--placement", "consolidated", "--seed", "7", "--preemption-cost", "30",
        ],
        dict(
            workload="poisson", load=6, jobs=400, cluster="8x4", admission="load-based:1.2",
            policy="tiresias:queues=2,threshold=3600", placement="consolidated", seed=7,
            preemption_cost=30,
        ),
    ),
    # Blox's multi-GPU synthetic workload with SRTF, decisions on events.
    "synthetic-events": (
        ["--workload", "blox-synthetic", "--load", "3", "--policy", "srtf", "--decide", "events", "--track", "0..300"],
        dict(workload="blox-synthetic", load=3, policy="srtf", decide="events", track="0..300"),
    ),
    # Random node failures (the cluster-management columns and fields).
    "failures": (
        ["--workload", "poisson", "--load", "4", "--jobs", "300", "--cluster", "4x8",
         "--failures", "mtbf=50,mttr=1", "--checkpoint-interval", "600", "--max-sim-time", "1e9",
         "--seed", "3"],
        dict(workload="poisson", load=4, jobs=300, cluster="4x8", failures="mtbf=50,mttr=1",
             checkpoint_interval=600, max_sim_time=1e9, seed=3),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_writes_the_clis_files(tmp_path, cli, case):
    args, kwargs = CASES[case]
    cli(tmp_path / "cli", "run", *args, "--out", "out")
    with in_dir(tmp_path / "py"):
        bloxsim.run(out="out", **kwargs)
    names = same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert {"jobs.csv", "timeline.csv", "summary.json"} <= {str(n) for n in names}


def test_to_dir_writes_the_clis_files(tmp_path, cli):
    args, kwargs = CASES["blox-readme"]
    cli(tmp_path / "cli", "run", *args, "--out", "out")
    r = bloxsim.run(**kwargs)
    with in_dir(tmp_path / "py"):
        r.to_dir("out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    # The in-memory files are the same bytes.
    for name, data in r.files().items():
        if name != "summary.json":  # records `out`
            assert data == (tmp_path / "cli" / "out" / name).read_bytes()


def test_a_scenario_file(tmp_path, cli):
    (tmp_path / "s.toml").write_text(
        'semantics = "blox"\ncluster = "16x4"\nround_s = 300\ntrack = "100..400"\nseed = 2\n'
        'workload = { kind = "blox-default", load = 4.0, trace_jobs = 12000 }\n'
        'admission = { kind = "load-based", factor = 1.4 }\npolicy = { kind = "srtf" }\n'
    )
    scen = str(tmp_path / "s.toml")
    cli(tmp_path / "cli", "run", "--scenario", scen, "--seed", "3", "--out", "out")
    with in_dir(tmp_path / "py"):
        bloxsim.run(scenario=scen, seed=3, out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")


def test_a_trace_dataframe_and_a_trace_file(tmp_path, cli):
    lines = ["job_id,arrival_s,n_gpus,duration_s,model"]
    lines += [f"{i},{i * 97.5},{1 + i % 4},{600 + (i * 37) % 5000},m{i % 3}" for i in range(120)]
    (tmp_path / "jobs.csv").write_text("\n".join(lines) + "\n")
    jobs = str(tmp_path / "jobs.csv")
    cli(tmp_path / "cli", "run", "--trace", jobs, "--cluster", "2x8", "--policy", "las", "--out", "out")
    with in_dir(tmp_path / "py"):
        bloxsim.run(trace=jobs, cluster="2x8", policy="las", out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    # The same jobs as a DataFrame: the same jobs.csv and timeline.csv.
    df = bloxsim.read_trace(tmp_path / "jobs.csv")
    r = bloxsim.run(trace=df, cluster="2x8", policy="las")
    assert r.files()["jobs.csv"] == (tmp_path / "cli" / "out" / "jobs.csv").read_bytes()
    assert r.files()["timeline.csv"] == (tmp_path / "cli" / "out" / "timeline.csv").read_bytes()


def test_compare_writes_the_clis_files(tmp_path, cli):
    cli(tmp_path / "cli", "compare", "--policy", "fifo,las,srtf", "--load", "7", "--out", "out")
    with in_dir(tmp_path / "py"):
        table = bloxsim.compare("fifo,las,srtf", load=7, out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert list(table["label"]) == ["fifo", "las", "srtf"]


def test_compare_over_placements(tmp_path, cli):
    cli(tmp_path / "cli", "compare", "--policy", "fifo,las", "--placements", "scattered,first-fit",
        "--workload", "poisson", "--load", "5", "--jobs", "200", "--cluster", "4x4", "--out", "out")
    with in_dir(tmp_path / "py"):
        table = bloxsim.compare("fifo,las", placements="scattered,first-fit", workload="poisson",
                                load=5, jobs=200, cluster="4x4", out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert list(table["name"]) == ["fifo+scattered", "las+scattered", "fifo+first-fit", "las+first-fit"]
    # A label several rows would share gives way to the run's name, as in the CLI's table.
    assert list(table["label"]) == list(table["name"])


def test_sweep_writes_the_clis_files(tmp_path, cli):
    cli(tmp_path / "cli", "sweep", "--semantics", "blox,exact", "--policy", "fifo,las",
        "--load", "2..3", "--seed", "1,2", "--track", "1000..1500", "--out", "out")
    with in_dir(tmp_path / "py"):
        table = bloxsim.sweep(semantics="blox,exact", policy="fifo,las", load="2..3", seed=[1, 2],
                              track="1000..1500", out="out", progress=False)
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert len(table) == 16
    # In memory: the same rows as results.csv.
    mem = bloxsim.sweep(semantics="blox,exact", policy="fifo,las", load="2..3", seed=[1, 2],
                        track="1000..1500", progress=False)
    assert mem.equals(table)


def test_synergy_defaults(tmp_path, cli):
    cli(tmp_path / "cli", "run", "--semantics", "synergy", "--load", "4", "--track", "100..300", "--out", "out")
    with in_dir(tmp_path / "py"):
        r = bloxsim.run(semantics="synergy", load=4, track="100..300", out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert r.summary["config"]["cluster"] == "16x8" and r.summary["config"]["seed"] == 42


def test_a_real_trace(tmp_path, cli, traces):
    trace = traces / "tiresias" / "60_job.csv"
    cli(tmp_path / "cli", "run", "--trace", str(trace), "--trace-format", "tiresias", "--cluster", "4x8",
        "--policy", "las", "--out", "out")
    with in_dir(tmp_path / "py"):
        bloxsim.run(trace=trace, trace_format="tiresias", cluster="4x8", policy="las", out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")


def test_pollux_semantics(tmp_path, cli, traces):
    w = traces / "pollux" / "workloads" / "workload-6.csv"
    assert w.is_file(), f"{w} is missing"
    args = ["--semantics", "pollux", "--trace", str(w), "--trace-format", "pollux", "--cluster", "16x4",
            "--round", "60", "--policy", "tiresias"]
    cli(tmp_path / "cli", "run", *args, "--out", "out")
    with in_dir(tmp_path / "py"):
        r = bloxsim.run(semantics="pollux", trace=w, trace_format="pollux", cluster="16x4", round=60,
                        policy="tiresias", out="out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    with in_dir(tmp_path / "py2"):
        r.to_dir("out")
    same_files(tmp_path / "cli" / "out", tmp_path / "py2" / "out")
    # The preset alone is the artifact's 16x4 at 60 s intervals, in Python as on the command line.
    with in_dir(tmp_path / "py3"):
        d = bloxsim.run(semantics="pollux", trace=w, policy="tiresias")
    assert d.files()["jobs.csv"] == r.files()["jobs.csv"]
