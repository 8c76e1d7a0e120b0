"""The API: results, DataFrame schemas and dtypes, scenarios, errors, the GIL."""

from __future__ import annotations

import json
import threading
import time

import pandas as pd
import pytest

import bloxsim
from bloxsim import _flags


@pytest.fixture(scope="module")
def readme():
    return bloxsim.run(semantics="blox", policy="las", load=1, track="3000..4000")


def test_a_run_has_typed_jobs_and_timeline(readme):
    jobs, tl = readme.jobs, readme.timeline
    assert list(jobs.columns) == [c for c in bloxsim.JOBS_DTYPES if c != "failures"]
    assert {c: str(t) for c, t in jobs.dtypes.items()} == {
        c: t for c, t in bloxsim.JOBS_DTYPES.items() if c != "failures"
    }
    assert list(tl.columns) == [c for c in bloxsim.TIMELINE_DTYPES if c != "available_gpus"]
    assert all(str(t) == bloxsim.TIMELINE_DTYPES[c] for c, t in tl.dtypes.items())
    # Blox's README configuration: 1,001 tracked jobs, the documented mean JCT.
    assert jobs["tracked"].sum() == 1001 == readme.summary["n_tracked"]
    assert readme.summary["avg_jct_s"] == pytest.approx(56717.38361638362)
    assert jobs.loc[jobs["tracked"], "jct_s"].mean() == pytest.approx(readme.avg_jct_s)
    assert readme.outcome["rounds"] == 48471
    assert len(readme.jcts_s) == 1001 and (readme.jcts_s[1:] >= readme.jcts_s[:-1]).all()
    # "never" is NaN, names missing are <NA>.
    assert jobs["model"].isna().all()
    assert "las" in repr(readme)


def test_the_scenario_is_the_clis(readme):
    s = readme.scenario
    assert s["semantics"] == "blox" and s["workload"] == {"kind": "blox-default", "load": 1.0, "trace_jobs": 12000}
    assert s["policy"] == {"kind": "las"} and s["track"] == "3000..4000"
    assert readme.summary["config"] == s
    # The same scenario from a dict, a file and flags.
    assert bloxsim.scenario(scenario=s) == s
    assert bloxsim.scenario(semantics="blox", policy="las", load=1, track="3000..4000") == s


def test_scenario_files_and_overrides(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"semantics": "blox", "cluster": "8x4", "workload": {"kind": "blox-default", "load": 3.0}}))
    s = bloxsim.scenario(scenario=p, load=5, seed=9)
    assert s["cluster"] == "8x4" and s["workload"]["load"] == 5.0 and s["seed"] == 9


def test_flags_select_workloads_as_the_cli_does():
    assert bloxsim.scenario(workload="poisson", load=3, jobs=50)["workload"] == {
        "kind": "poisson", "load": 3.0, "jobs": 50, "durations": "philly-like", "gpus": "philly"
    }
    assert bloxsim.scenario(workload="dual-load")["workload"] == {"kind": "dual-load", "load": 9.0, "jobs": 10000}
    s = bloxsim.scenario(semantics="synergy")
    assert s["workload"]["kind"] == "synergy-default" and s["cluster"] == "16x8" and s["seed"] == 42
    assert s["placement"] == {"kind": "synergy", "mode": "tune"}
    assert bloxsim.scenario(admission="load-based:1.2")["admission"] == {"kind": "load-based", "factor": 1.2}


def test_compare_table():
    table, runs = bloxsim.compare("fifo,las,srtf", load=7, results=True)
    assert list(table.columns) == list(bloxsim.COMPARE_DTYPES)
    assert all(str(t) == bloxsim.COMPARE_DTYPES[c] for c, t in table.dtypes.items())
    assert list(table["policy"]) == ["fifo", "las", "srtf"] and set(runs) == {"fifo", "las", "srtf"}
    assert table.loc[1, "avg_jct_s"] == pytest.approx(runs["las"].avg_jct_s)
    assert (table["load"] == 7.0).all() and (table["semantics"] == "exact").all()


def test_sweep_table_and_shards():
    full = bloxsim.sweep(policy="fifo,las", load=range(2, 4), seed="1..2", track="0..200", progress=False)
    assert list(full.columns) == [c for c in bloxsim.SWEEP_DTYPES if c != "failure_rate"]
    assert all(str(t) == bloxsim.SWEEP_DTYPES[c] for c, t in full.dtypes.items())
    assert list(full["index"]) == list(range(8))
    assert full.loc[0, "label"] == "exact-32x4-accept-all-fifo-scattered-load2-seed1"
    parts = [bloxsim.sweep(policy="fifo,las", load=range(2, 4), seed="1..2", track="0..200", shard=f"{k}/3", progress=False) for k in range(3)]
    joined = pd.concat(parts).sort_values("index").reset_index(drop=True)
    assert joined.equals(full)
    plan = bloxsim.sweep(policy="fifo,las", load="1..9", dry_run=True)
    assert len(plan) == 18 and plan[0][2]["workload"]["load"] == 1.0


def test_sweep_over_failures_has_a_failure_rate():
    t = bloxsim.sweep(failures="none;mtbf=50,mttr=1", max_sim_time=1e9, workload="poisson", load=3, jobs=100, cluster="2x4", progress=False)
    assert list(t.columns)[-1] == "failure_rate"
    assert t["failure_rate"].isna().tolist() == [True, False]


def test_read_trace(tmp_path):
    (tmp_path / "t.csv").write_text("job_id,arrival_s,n_gpus,duration_s,model\n0,10,2,600,resnet\n1,5,1,30.5,\n")
    df = bloxsim.read_trace(tmp_path / "t.csv")
    assert list(df.columns) == list(bloxsim.TRACE_DTYPES)
    assert all(str(t) == bloxsim.TRACE_DTYPES[c] for c, t in df.dtypes.items())
    assert df["arrival_s"].tolist() == [5.0, 10.0]  # merged by arrival
    assert df["model"].tolist()[1] == "resnet"
    (tmp_path / "bad.csv").write_text("job_id,arrival_s,n_gpus,duration_s\n0,x,1,5\n1,3,1,5\n")
    with pytest.raises(bloxsim.InputError, match="bad.csv:2"):
        bloxsim.read_trace(tmp_path / "bad.csv")
    df = bloxsim.read_trace(tmp_path / "bad.csv", skip_bad_lines=True)
    assert len(df) == 1 and df.attrs["bad_lines"] == 1


def test_runs_with_cluster_management_have_the_extra_columns():
    r = bloxsim.run(workload="poisson", load=4, jobs=100, cluster="2x8", failures="mtbf=20,mttr=1", max_sim_time=1e9, seed=2)
    assert list(r.jobs.columns)[-1] == "failures" and str(r.jobs["failures"].dtype) == "int64"
    assert list(r.timeline.columns)[-1] == "available_gpus"


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(load=-3), bloxsim.ConfigError, r"load=-3: must be a number of jobs per hour ≥ .*\(it is negative\)"),
        (dict(round=0), bloxsim.ConfigError, "round=0"),
        (dict(cluster="banana"), bloxsim.ConfigError, "cluster='banana'"),
        (dict(track="9..3"), bloxsim.ConfigError, "track="),
        (dict(policy="nope"), bloxsim.ConfigError, "unknown policy `nope`"),
        (dict(semantics="tiresias"), bloxsim.ConfigError, "semantics='tiresias' runs a trace: give trace=FILE"),
        (dict(semantics="gavel"), bloxsim.ConfigError, "semantics='gavel' needs exactly one trace=FILE"),
        (dict(semantics="tiresias", trace="t.csv", seed=3), bloxsim.ConfigError,
         "seed has no meaning under semantics='tiresias' .*; seed is taken by semantics='exact', 'blox', 'synergy', 'gavel', 'pollux', 'sia'$"),
        (dict(trace="t.csv", load=3), bloxsim.ConfigError, "trace='t.csv' cannot be combined with load=3"),
        (dict(resample=3), bloxsim.ConfigError, "resample=3 needs trace="),
        (dict(workload="banana"), bloxsim.ConfigError, "workload='banana': expected one of blox-default"),
        (dict(jobs=1.5), bloxsim.ConfigError, "jobs=1.5: must be a whole number"),
        (dict(semantics="nope"), bloxsim.ConfigError, "unknown semantics"),
        (dict(trace_format="itp"), bloxsim.ConfigError, "need trace"),
        (dict(durations="constant:5"), bloxsim.ConfigError, "workload='poisson'"),
        (dict(interference=0.2), bloxsim.ConfigError, "interference has no meaning under semantics='exact'.*taken by semantics='pollux'"),
        (dict(trace="/nonexistent.csv"), bloxsim.BloxError, "nonexistent"),
        (dict(semantics="blox", preemption_cost=5), bloxsim.ConfigError, "preemption_cost"),
    ],
)
def test_bad_settings_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        bloxsim.run(**kwargs)


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match=r"unknown keyword argument\(s\) \['laod'\] \(`laod`: did you mean `load`\?\)"):
        bloxsim.run(laod=3)


def test_a_bad_scenario_file_names_file_line_and_key(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('cluster = "4x4"\nround_s = 0\n')
    with pytest.raises(bloxsim.InputError, match=r"s.toml:2: field `round_s`"):
        bloxsim.run(scenario=p)
    p.write_text('cluster = "4x4"\nbogus = 1\n')
    with pytest.raises(bloxsim.InputError, match="unknown field `bogus`"):
        bloxsim.run(scenario=p)
    with pytest.raises(bloxsim.ConfigError, match="unknown field"):
        bloxsim.run(scenario={"bogus": 1})


def test_errors_derive_from_builtins():
    assert issubclass(bloxsim.ConfigError, ValueError)
    assert issubclass(bloxsim.StalledError, RuntimeError)
    assert issubclass(bloxsim.UnsupportedError, NotImplementedError)
    assert issubclass(bloxsim.PolicyError, bloxsim.SimulationError)


def test_a_stall_is_a_stalled_error():
    # Blox's scattered fit never places a 12-GPU job on 8-GPU nodes (the README's example).
    with pytest.raises(bloxsim.StalledError, match="cannot make progress"):
        bloxsim.run(semantics="blox", workload="poisson", load=10, jobs=2000, cluster="16x8", policy="las", seed=18)


def test_a_run_releases_the_gil():
    """While a simulation runs on another thread, this thread keeps running Python."""
    done = threading.Event()
    ticks = 0

    def work():
        bloxsim.run(workload="poisson", load=8, jobs=20000, cluster="32x8", policy="las")
        done.set()

    t = threading.Thread(target=work)
    started = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0)
    t.join()
    elapsed = time.perf_counter() - started
    assert elapsed > 0.05, "the run was too short to tell"
    # Holding the GIL for the whole run would leave this loop a handful of turns.
    assert ticks > 1000, (ticks, elapsed)


def test_max_sim_time_stops_a_run():
    with pytest.raises(bloxsim.SimulationError, match="simulated"):
        bloxsim.run(load=50, max_sim_time=86400)


def test_flag_helpers():
    assert _flags.split_specs("tiresias:queues=2,threshold=3600,las") == ["tiresias:queues=2,threshold=3600", "las"]
    assert _flags.numbers("load", "1..3,4.5") == [1.0, 2.0, 3.0, 4.5]
    with pytest.raises(bloxsim.ConfigError, match="reversed"):
        _flags.numbers("load", "3..1")


def test_build_hints_keep_cargo_flags():
    # The run's flags become keywords in messages; cargo's `--features` in a build hint does not.
    with pytest.raises(bloxsim.ConfigError, match=r"--features blox-sia/cbc") as e:
        bloxsim.run(semantics="sia", trace="t.csv", policy="sia:solver=cbc")
    assert "features blox-sia" not in str(e.value).replace("--features blox-sia", "")
