"""bloxsim.testing: the strategies, and the checkers on correct and on broken components."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bloxsim
from bloxsim import testing as bt

fast = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class PyLas:
    def schedule(self, ctx):
        return [j for _, _, j in sorted(zip(ctx.priority, ctx.attained_gpu_s, ctx.job_id))]


class DropsOne(PyLas):
    """Broken: forgets the last job of its order."""

    def schedule(self, ctx):
        return super().schedule(ctx)[:-1]


@fast
@given(bt.contexts())
def test_python_las_orders_every_job_as_the_stock_las_does(ctx):
    s = PyLas().schedule(ctx)
    bt.check_permutation(ctx, s)
    assert [(j, n) for j, n in bt.stock_schedule(ctx, "las")] == [(j, ctx.job(j).n_gpus) for j in s]
    assert bt.stock_schedule(ctx, "las", "blox") == [
        (j, ctx.job(j).n_gpus) for _, _, j in sorted(zip(ctx.priority, ctx.attained_wall_s, ctx.job_id))
    ]


@fast
@given(bt.contexts())
def test_the_permutation_checker_catches_a_dropped_job(ctx):
    s = DropsOne().schedule(ctx)
    if len(ctx) == 0:
        bt.check_permutation(ctx, s)
        return
    with pytest.raises(bt.Violation) as e:
        bt.check_permutation(ctx, s)
    assert e.value.invariant == "schedule-permutation"
    assert e.value.detail == f"{len(ctx) - 1} entries for {len(ctx)} active jobs"


def test_schedule_checker_details():
    ctx = bt.make_context({"job_id": [0, 1], "n_gpus": [1, 2], "work_s": [10, 10]}, "1x2")
    with pytest.raises(bt.Violation, match="job 5 is not active"):
        bt.check_schedule(ctx, [5])
    with pytest.raises(bt.Violation, match="job 1 is listed twice"):
        bt.check_schedule(ctx, [1, (1, 2)])
    with pytest.raises(bt.Violation, match="job 0 gets 3 GPUs of 2"):
        bt.check_schedule(ctx, [(0, 3)])
    bt.check_permutation(ctx, [1, 0])


class LowestFree:
    def place(self, ctx, schedule):
        free = list(ctx.free_gpu_ids)
        running = dict(zip(ctx.job_id, ctx.running))
        start = []
        for job, n, _ in schedule:
            if not running[job] and n <= len(free):
                start.append((job, free[:n]))
                free = free[n:]
        return {"stop": [], "start": start}


class DoubleBooks:
    """Broken: gives every waiting job GPU 0 (blox-testkit's `greedy`)."""

    def place(self, ctx, schedule):
        running = dict(zip(ctx.job_id, ctx.running))
        return {"start": [(job, [0]) for job, n, _ in schedule if not running[job]]}


@fast
@given(bt.contexts())
def test_a_valid_placement_passes_on_every_state(ctx):
    schedule = [(j, n, None) for j, n in zip(ctx.job_id, ctx.n_gpus)]
    bt.check_placement(ctx, LowestFree().place(ctx, schedule))


def test_the_placement_checker_catches_double_booking():
    ctx = bt.make_context({"job_id": [0, 1], "n_gpus": [1, 1], "work_s": [10, 10]}, "1x4")
    d = DoubleBooks().place(ctx, [(0, 1, None), (1, 1, None)])
    with pytest.raises(bt.Violation) as e:
        bt.check_placement(ctx, d)
    assert e.value.invariant == "placement-valid"
    assert e.value.detail == "gives GPU 0 to both job 0 and job 1"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bt.jobs(30, 4), st.sampled_from(["blox", "exact"]))
def test_whole_runs_of_a_python_policy_conserve_jobs_and_keep_time(jobs, semantics):
    bloxsim.register_policy("py-las", PyLas)
    run = lambda: bt.record(trace=jobs, cluster="2x4", policy="py-las", semantics=semantics)
    rec = run()
    bt.check_conservation(rec, finished_all=True)
    bt.check_time_monotone(rec)
    bt.check_deterministic(run)
    assert rec.result.summary["n_tracked"] == len(jobs)


def test_the_starvation_checker_catches_newest_first():
    class NewestFirst:
        def schedule(self, ctx):
            return sorted(ctx.job_id, reverse=True)

    bloxsim.register_policy("newest-first", NewestFirst)
    # One GPU; a job arrives every 300 s, each running 600 s (blox-testkit's case).
    jobs = pd.DataFrame({"arrival_s": [i * 300.0 for i in range(40)], "n_gpus": 1, "duration_s": 600.0})
    rec = bt.record(trace=jobs, cluster="1x1", policy="newest-first")
    with pytest.raises(bt.Violation) as e:
        bt.check_starvation_free(rec, 3600)
    assert e.value.invariant == "starvation-free"
    fifo = bt.record(trace=jobs, cluster="1x1", policy="fifo")
    bt.check_starvation_free(fifo, 13_000)


def test_the_work_conservation_checker():
    # blox-testkit's case: a 4-GPU job at the head of FIFO blocks a 1-GPU job while 3 GPUs are free.
    jobs = pd.DataFrame({"arrival_s": [0.0, 300.0, 300.0], "n_gpus": [1, 4, 1], "duration_s": [10_000.0, 600.0, 600.0]})
    rec = bt.record(trace=jobs, cluster="1x4", policy="fifo")
    with pytest.raises(bt.Violation) as e:
        bt.check_work_conserving(rec)
    assert e.value.detail.startswith("at 300 s, 3 GPUs were free"), e.value.detail

    class HeadOnly:
        """Broken: runs only the oldest job, whatever is free."""

        def schedule(self, ctx):
            return list(ctx.job_id[:1])

    bloxsim.register_policy("head-only", HeadOnly)
    ones = pd.DataFrame({"arrival_s": [i * 100.0 for i in range(20)], "n_gpus": 1, "duration_s": 5000.0})
    bt.check_work_conserving(bt.record(trace=ones, cluster="1x4", policy="fifo"))
    with pytest.raises(bt.Violation, match="GPUs were free while a job needing 1 waited"):
        bt.check_work_conserving(bt.record(trace=ones, cluster="1x4", policy="head-only"))


def test_recorded_runs_give_runs_files():
    kw = dict(workload="poisson", load=5, jobs=200, cluster="4x4", policy="srtf")
    rec = bt.record(**kw)
    assert rec.result.files() == bloxsim.run(**kw).files()
    kinds = set(rec.events["kind"])
    assert {"arrived", "admitted", "started", "completed", "round", "end"} <= kinds
    with pytest.raises(bloxsim.UnsupportedError):
        bt.record(semantics="synergy")
