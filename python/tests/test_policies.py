"""Components written in Python: registered by name, used like stock ones, mixed with Rust
ones, deterministic, and stopped cleanly by their exceptions."""

from __future__ import annotations

import random

import pytest

import bloxsim


class PyLas:
    """LAS on attained GPU-seconds (the `exact` preset's `las`): starved first, then least
    service, then lowest id."""

    def schedule(self, ctx):
        key = zip(ctx.priority, ctx.attained_gpu_s, ctx.job_id)
        return [j for _, _, j in sorted(key)]


class PyBloxLas:
    """Blox's LAS (the `blox` preset's `las`): attained wall-clock seconds."""

    def schedule(self, ctx):
        return [j for _, _, j in sorted(zip(ctx.priority, ctx.attained_wall_s, ctx.job_id))]


class PyFifo:
    """FIFO through job views and (job, GPUs) pairs."""

    def schedule(self, ctx):
        jobs = sorted(ctx.jobs, key=lambda j: (j.priority, j.arrival_s, j.job_id))
        return [(j.job_id, j.n_gpus) for j in jobs]


class AcceptAll:
    def admit(self, ctx, queue):
        return list(range(len(queue)))


class LowestFree:
    """Each job in schedule order on the lowest free GPUs, no preemption (valid, not Blox's)."""

    def place(self, ctx, schedule):
        free = list(ctx.free_gpu_ids)
        running = dict(zip(ctx.job_id, ctx.running))
        start = []
        for job, n, _type in schedule:
            if running[job]:
                continue
            if n <= len(free):
                start.append((job, free[:n]))
                free = free[n:]
        return {"stop": [], "start": start}


SMALL = dict(workload="poisson", load=6, jobs=300, cluster="4x4", seed=3)


@pytest.mark.parametrize("semantics, stock, mine", [("exact", "las", PyLas), ("blox", "las", PyBloxLas), ("exact", "fifo", PyFifo), ("blox", "fifo", PyFifo)])
def test_a_python_policy_gives_the_stock_ones_files(semantics, stock, mine):
    bloxsim.register_policy("mine", mine)
    a = bloxsim.run(semantics=semantics, policy=stock, **SMALL)
    b = bloxsim.run(semantics=semantics, policy="mine", **SMALL)
    fa, fb = a.files(), b.files()
    assert fa["jobs.csv"] == fb["jobs.csv"] and fa["timeline.csv"] == fb["timeline.csv"]
    assert b.summary["config"]["policy"] == {"kind": "mine"} and b.name == "mine"


def test_blox_readme_configuration_with_las_in_python():
    bloxsim.register_policy("py-las", PyBloxLas)
    a = bloxsim.run(semantics="blox", policy="las", load=1, track="3000..4000")
    b = bloxsim.run(semantics="blox", policy="py-las", load=1, track="3000..4000")
    assert a.files()["jobs.csv"] == b.files()["jobs.csv"]
    assert a.avg_jct_s == b.avg_jct_s


def test_python_admission_and_placement():
    bloxsim.register_admission("py-accept", AcceptAll)
    bloxsim.register_placement("lowest-free", LowestFree)
    a = bloxsim.run(policy="fifo", **SMALL)
    b = bloxsim.run(policy="fifo", admission="py-accept", **SMALL)
    assert a.files()["jobs.csv"] == b.files()["jobs.csv"]
    c = bloxsim.run(policy="fifo", placement="lowest-free", **SMALL)
    assert c.summary["n_tracked"] == 300 and c.jobs["completion_s"].notna().all()
    # Everything in Python at once, under blox semantics too.
    bloxsim.register_policy("py-fifo", PyFifo)
    d = bloxsim.run(semantics="blox", policy="py-fifo", admission="py-accept", placement="lowest-free", **SMALL)
    assert d.jobs["completion_s"].notna().all()


def test_mixed_with_rust_components_in_compare_and_sweep():
    bloxsim.register_policy("py-las", PyLas)
    table = bloxsim.compare("fifo,py-las,las", **SMALL)
    assert list(table["policy"]) == ["fifo", "py-las", "las"]
    assert table.loc[1, "avg_jct_s"] == table.loc[2, "avg_jct_s"]
    sw = bloxsim.sweep(policy="las,py-las", seed="1..3", progress=False, **{k: v for k, v in SMALL.items() if k != "seed"})
    assert len(sw) == 6
    for seed in (1, 2, 3):
        rows = sw[sw["seed"] == seed]
        assert rows["avg_jct_s"].nunique() == 1, rows


def test_scenario_dicts_name_python_components_and_parameters():
    seen = {}

    class Param:
        def __init__(self, alpha="1", mode="x"):
            seen["args"] = (alpha, mode)

        def schedule(self, ctx):
            return list(ctx.job_id)

    bloxsim.register_policy("param", Param)
    bloxsim.run(policy="param:alpha=2,mode=y", **SMALL)
    assert seen["args"] == ("2", "y")
    r = bloxsim.run(scenario={"policy": {"kind": "param", "alpha": "3"}, "cluster": "4x4",
                              "workload": {"kind": "poisson", "load": 6.0, "jobs": 50}})
    assert seen["args"] == ("3", "x") and r.summary["config"]["policy"] == {"kind": "param", "alpha": "3"}


def test_decorator_and_registry():
    @bloxsim.register_policy("deco")
    class Deco(PyLas):
        pass

    assert bloxsim.registered()["policy"]["deco"] is Deco
    bloxsim.unregister("deco")
    with pytest.raises(bloxsim.ConfigError, match="unknown policy `deco`"):
        bloxsim.run(policy="deco", **SMALL)
    with pytest.raises(bloxsim.ConfigError, match="stock component"):
        bloxsim.register_policy("las", PyLas)
    with pytest.raises(TypeError, match="no `schedule` method"):
        bloxsim.register_policy("x", AcceptAll)


class Randomised:
    """Random order from the run's seeded stream."""

    def schedule(self, ctx):
        ids = list(ctx.job_id)
        ctx.random.shuffle(ids)
        return ids


def test_seeded_randomness_keeps_runs_identical():
    bloxsim.register_policy("rand", Randomised)
    a = bloxsim.run(policy="rand", **SMALL).files()
    b = bloxsim.run(policy="rand", **SMALL).files()
    assert a == b
    c = bloxsim.run(policy="rand", **{**SMALL, "seed": 4}).files()
    assert c["jobs.csv"] != a["jobs.csv"]


def test_the_context():
    seen = []

    class Look:
        def schedule(self, ctx):
            if ctx.round == 40 and not seen:
                seen.append(
                    dict(
                        n=len(ctx), now=ctx.now_s, round_s=ctx.round_s, total=ctx.total_gpus,
                        free=ctx.free_gpus, ids=ctx.job_id, cols=ctx.columns(), df=ctx.to_pandas(),
                        job=ctx.job(ctx.job_id[0]) if len(ctx) else None, seed=ctx.seed, run_seed=ctx.run_seed,
                    )
                )
                with pytest.raises(ValueError, match="placement calls only"):
                    ctx.free_gpu_ids
            return list(ctx.job_id)

    bloxsim.register_policy("look", Look)
    bloxsim.run(policy="look", **SMALL)
    s = seen[0]
    assert s["now"] == 40 * 300 and s["round_s"] == 300 and s["total"] == 16 and s["run_seed"] == 3
    assert list(s["ids"]) == sorted(s["ids"]) and len(s["df"]) == s["n"]
    assert set(s["cols"]) == set(bloxsim._native.JOB_COLUMNS)
    if s["job"] is not None:
        assert s["job"].job_id == s["ids"][0]


class Boom:
    def __init__(self, at=5):
        self.at = int(at)

    def schedule(self, ctx):
        if ctx.round >= self.at:
            raise KeyError("no such thing")
        return list(ctx.job_id)


def test_an_exception_stops_the_run_and_writes_nothing(tmp_path):
    bloxsim.register_policy("boom", Boom)
    out = tmp_path / "out"
    with pytest.raises(bloxsim.PolicyError) as e:
        bloxsim.run(policy="boom:at=7", out=out, **SMALL)
    err = e.value
    assert isinstance(err.__cause__, KeyError)
    assert err.__cause__.__traceback__ is not None
    # The first round at or after 7 that is decided (idle rounds are skipped).
    assert err.component == "boom" and err.round >= 7 and err.time_s == err.round * 300
    assert f"round {err.round} (t = {err.round * 300} s)" in str(err) and "KeyError" in str(err)
    assert not out.exists()


def test_exceptions_in_constructors_compare_and_sweep(tmp_path):
    class BadInit:
        def __init__(self):
            raise RuntimeError("cannot build")

        def schedule(self, ctx):
            return []

    bloxsim.register_policy("bad-init", BadInit)
    with pytest.raises(bloxsim.PolicyError, match="construction") as e:
        bloxsim.run(policy="bad-init", **SMALL)
    assert isinstance(e.value.__cause__, RuntimeError) and e.value.round is None
    bloxsim.register_policy("boom", Boom)
    with pytest.raises(bloxsim.PolicyError):
        bloxsim.compare("fifo,boom", out=tmp_path / "cmp", **SMALL)
    assert not (tmp_path / "cmp").exists()
    with pytest.raises(bloxsim.SweepError, match="boom") as e:
        bloxsim.sweep(policy="boom", seed="1..4", progress=False, **{k: v for k, v in SMALL.items() if k != "seed"})
    assert isinstance(e.value.__cause__, bloxsim.PolicyError)


@pytest.mark.parametrize(
    "ret, match",
    [
        (lambda ctx: [10_000], "job 10000, which is not active"),
        (lambda ctx: list(ctx.job_id) * 2, "twice"),
        (lambda ctx: None, "must return"),
        (lambda ctx: [("a", 1)], "TypeError|cannot be interpreted|str"),
        (lambda ctx: [(ctx.job_id[0], 1, "tpu")] if len(ctx) else [], "GPU type `tpu`"),
    ],
)
def test_bad_return_values_stop_the_run(ret, match):
    class Bad:
        def schedule(self, ctx):
            return ret(ctx)

    bloxsim.register_policy("bad", Bad)
    with pytest.raises(bloxsim.PolicyError, match=match):
        bloxsim.run(policy="bad", **SMALL)


def test_an_invalid_placement_is_the_engines_error():
    class Greedy:
        def place(self, ctx, schedule):
            running = dict(zip(ctx.job_id, ctx.running))
            return {"start": [(job, [0]) for job, n, _ in schedule if not running[job]]}

    bloxsim.register_placement("greedy", Greedy)
    with pytest.raises(bloxsim.InvalidDecisionError, match="greedy.*GPU 0"):
        bloxsim.run(placement="greedy", **SMALL)


def test_global_random_breaks_determinism_and_the_checker_says_so():
    from bloxsim import testing as bt

    class Unseeded:
        def schedule(self, ctx):
            ids = list(ctx.job_id)
            random.shuffle(ids)
            return ids

    bloxsim.register_policy("unseeded", Unseeded)
    with pytest.raises(bt.Violation, match="deterministic"):
        bt.check_deterministic(lambda: bloxsim.run(policy="unseeded", **SMALL))


def test_python_policies_under_synergy_semantics():
    bloxsim.register_policy("py-fifo", PyFifo)
    kw = dict(semantics="synergy", load=4, track="100..200", placement="synergy:mode=fair")
    a = bloxsim.run(policy="py-fifo", **kw)
    assert a.jobs.loc[a.jobs["tracked"], "completion_s"].notna().all()
    assert a.summary["config"]["policy"] == {"kind": "py-fifo"}


def test_python_policies_under_pollux_semantics(traces, tmp_path):
    w = traces / "pollux" / "workloads" / "workload-6.csv"
    assert w.is_file(), f"{w} is missing"
    # The first 12 jobs of workload 6, on the artifact's application traces.
    small = tmp_path / "w12.csv"
    small.write_text("".join(w.read_text().splitlines(keepends=True)[:13]))
    bloxsim.register_policy("py-las", PyLas)
    kw = dict(semantics="pollux", trace=small, trace_format="pollux", cluster="4x4", round=60,
              pollux_traces=traces / "pollux" / "traces")
    a = bloxsim.run(policy="las", **kw)
    b = bloxsim.run(policy="py-las", **kw)
    assert a.files()["jobs.csv"] == b.files()["jobs.csv"]
    assert b.summary["n_tracked"] == 12
    assert b.semantics == "pollux"
    table = bloxsim.compare("las,py-las", **kw)
    assert (table["semantics"] == "pollux").all() and table.loc[0, "avg_jct_s"] == table.loc[1, "avg_jct_s"]
