"""The peers' own simulators from Python (`semantics="tiresias"` and `"gavel"`): the same files as
`blox-sim run`/`compare --out`, byte for byte; their DataFrames; Python policies under them."""

from __future__ import annotations

import json

import pytest

import bloxsim

from conftest import same_files
from test_parity import in_dir
from test_policies import PyLas


def tiresias_case(traces):
    trace = str(traces / "tiresias" / "60_job.csv")
    args = ["--semantics", "tiresias", "--trace", trace, "--trace-format", "tiresias", "--cluster", "4x8"]
    kwargs = dict(semantics="tiresias", trace=trace, trace_format="tiresias", cluster="4x8")
    return args, kwargs


def gavel_case(traces):
    trace = str(traces / "gavel" / "physical_cluster" / "small_test.trace")
    table = str(traces / "gavel" / "physical_cluster_throughputs.json.gz")
    cluster = "1x4:v100,1x4:p100,1x4:k80"
    args = ["--semantics", "gavel", "--trace", trace, "--throughputs", table, "--cluster", cluster]
    kwargs = dict(semantics="gavel", trace=trace, throughputs=table, cluster=cluster)
    return args, kwargs


TIRESIAS_FILES = ["jct_cdf.csv", "job.csv", "jobs.csv", "summary.json", "timeline.csv"]
GAVEL_FILES = ["jobs.csv", "summary.json"]


@pytest.mark.parametrize("policy", [None, "dlas-gpu", "las"])
def test_tiresias_run_writes_the_clis_files(tmp_path, cli, traces, policy):
    args, kwargs = tiresias_case(traces)
    if policy is not None:
        args += ["--policy", policy]
    cli(tmp_path / "cli", "run", *args, "--out", "out")
    with in_dir(tmp_path / "py"):
        r = bloxsim.run(policy=policy, out="out", **kwargs)
    names = same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert sorted(str(n) for n in names) == TIRESIAS_FILES
    # In memory, and written again elsewhere: the same bytes.
    assert r.files() == {n: (tmp_path / "cli" / "out" / n).read_bytes() for n in TIRESIAS_FILES}
    r.to_dir(tmp_path / "again")
    same_files(tmp_path / "cli" / "out", tmp_path / "again")
    # A run with no `out` leaves no files but holds the same ones.
    assert bloxsim.run(policy=policy, **kwargs).files() == r.files()


def test_tiresias_dataframes(traces):
    _, kwargs = tiresias_case(traces)
    r = bloxsim.run(policy="dlas-gpu", **kwargs)
    assert r.semantics == "tiresias"
    assert list(r.jobs.columns) == [c for c in bloxsim.JOBS_DTYPES if c in r.jobs.columns]
    assert all(str(t) == bloxsim.JOBS_DTYPES[c] for c, t in r.jobs.dtypes.items())
    assert len(r.jobs) == 60 == r.summary["n_jobs"]
    assert list(r.timeline.columns)[:4] == ["time_s", "jobs_in_queue", "jobs_running", "free_gpus"]
    assert r.summary["semantics"] == "tiresias" and r.summary["policy"].startswith("dlas-gpu")
    assert r.avg_jct_s == pytest.approx(r.summary["avg_jct_s"])
    assert "tiresias" in repr(r)
    with pytest.raises(bloxsim.UnsupportedError, match="no engine scenario"):
        r.scenario
    with pytest.raises(bloxsim.UnsupportedError, match="no engine scenario"):
        bloxsim.scenario(**kwargs)


def test_gavel_run_writes_the_clis_files(tmp_path, cli, traces):
    args, kwargs = gavel_case(traces)
    cli(tmp_path / "cli", "run", *args, "--policy", "max_min_fairness", "--out", "out")
    with in_dir(tmp_path / "py"):
        r = bloxsim.run(policy="max_min_fairness", out="out", **kwargs)
    names = same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert sorted(str(n) for n in names) == GAVEL_FILES
    r.to_dir(tmp_path / "again")
    same_files(tmp_path / "cli" / "out", tmp_path / "again")
    jobs = r.jobs
    assert list(jobs.columns) == list(bloxsim.GAVEL_JOBS_DTYPES)
    assert {c: str(t) for c, t in jobs.dtypes.items()} == bloxsim.GAVEL_JOBS_DTYPES
    assert set(jobs["status"]) <= {"completed", "dropped"}
    assert r.summary["semantics"] == "gavel" and r.summary["policy"] == "max_min_fairness"
    assert r.semantics == "gavel"
    with pytest.raises(bloxsim.UnsupportedError, match="no timeline.csv"):
        r.timeline


def test_gavel_refuses_what_it_does_not_take(traces):
    _, kwargs = gavel_case(traces)
    with pytest.raises(bloxsim.ConfigError, match="placement has no meaning under semantics='gavel'"):
        bloxsim.run(placement="first-fit", **kwargs)
    with pytest.raises(bloxsim.ConfigError, match="starvation has no meaning under semantics='gavel'"):
        bloxsim.run(starvation=60, **kwargs)


@pytest.mark.parametrize("case", ["tiresias", "gavel"])
def test_compare_under_a_peer_writes_the_clis_files(tmp_path, cli, traces, case):
    args, kwargs = (tiresias_case if case == "tiresias" else gavel_case)(traces)
    policies = "fifo,dlas-gpu,las" if case == "tiresias" else "fifo,max_min_fairness,las"
    cli(tmp_path / "cli", "compare", *args, "--policy", policies, "--out", "out")
    with in_dir(tmp_path / "py"):
        table, runs = bloxsim.compare(policies, out="out", results=True, **kwargs)
    names = same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert "compare.csv" in {str(n) for n in names}
    assert list(table.columns) == list(bloxsim.COMPARE_DTYPES)
    assert all(str(t) == bloxsim.COMPARE_DTYPES[c] for c, t in table.dtypes.items())
    assert list(table["name"]) == policies.split(",") and (table["semantics"] == case).all()
    csv = (tmp_path / "cli" / "out" / "compare.csv").read_text().splitlines()
    assert len(csv) == 4 and [line.split(",")[0] for line in csv[1:]] == list(table["label"])
    assert table["avg_jct_s"].tolist() == [runs[n].comparison_row()["avg_jct_s"] for n in table["name"]]


def test_compare_over_tiresias_placements(tmp_path, cli, traces):
    args, kwargs = tiresias_case(traces)
    cli(tmp_path / "cli", "compare", *args, "--policy", "fifo,dlas-gpu", "--placements", "yarn,balance", "--out", "out")
    with in_dir(tmp_path / "py"):
        table = bloxsim.compare("fifo,dlas-gpu", placements="yarn,balance", out="out", **kwargs)
    same_files(tmp_path / "cli" / "out", tmp_path / "py" / "out")
    assert list(table["name"]) == ["fifo+yarn", "dlas-gpu+yarn", "fifo+balance", "dlas-gpu+balance"]
    assert list(table["label"]) == list(table["name"])


def test_a_python_policy_under_tiresias(traces):
    """A registered Python policy runs on Tiresias' clock like the engine's policy it mirrors."""
    _, kwargs = tiresias_case(traces)
    bloxsim.register_policy("py-las", PyLas)
    a = bloxsim.run(policy="las", **kwargs)
    b = bloxsim.run(policy="py-las", **kwargs)
    fa, fb = a.files(), b.files()
    for name in ("jobs.csv", "job.csv", "timeline.csv", "jct_cdf.csv"):
        assert fa[name] == fb[name], name
    assert json.loads(fb["summary.json"])["policy"] == "py-las" and b.name == "py-las"
    # And beside stock ones in a comparison.
    table = bloxsim.compare("dlas-gpu,py-las,las", **kwargs)
    assert table.loc[1, "avg_jct_s"] == table.loc[2, "avg_jct_s"]


def test_a_python_policy_under_gavel(traces):
    _, kwargs = gavel_case(traces)
    bloxsim.register_policy("py-las", PyLas)
    a = bloxsim.run(policy="las", **kwargs)
    b = bloxsim.run(policy="py-las", **kwargs)
    assert a.files()["jobs.csv"] == b.files()["jobs.csv"]


def test_keyword_arguments_are_run_settings():
    """The keyword arguments are the Rust `RunSettings` (the CLI's flags), no second parser."""
    from bloxsim import _native

    st = json.loads(_native.settings_json(dict(resample=2, trace=["a.csv", "b.csv"], round=600.0, skip_bad_lines=True)))
    assert st["resample"] == 2.0 and st["trace"] == ["a.csv", "b.csv"] and st["round"] == 600
    assert st["skip_bad_lines"] is True and st["semantics"] is None
    st = json.loads(_native.settings_json(dict(admission={"kind": "load-based", "factor": 1.2}, policy={"kind": "las"})))
    assert st["admission"] == {"kind": "load-based", "factor": 1.2} and st["policy"] == "las"


def test_a_peer_run_leaves_no_scratch_folder(traces):
    """A peer run with no `out` runs in a scratch folder that is removed, also when it fails."""
    import os
    import tempfile
    from pathlib import Path

    _, kwargs = gavel_case(traces)
    left = lambda: list(Path(tempfile.gettempdir()).glob(f"bloxsim-run-{os.getpid()}-*"))  # noqa: E731
    bloxsim.run(**kwargs)
    with pytest.raises(bloxsim.ConfigError):
        bloxsim.compare("fifo,no-such-policy", **kwargs)
    assert left() == []
