"""How much a scheduling policy written in Python costs (a report, not a test).

    python python/bench/bench_python_policy.py [--blox-sim target/release/blox-sim] [--repeat 5]

1. Blox's README configuration (`--semantics blox --policy las --load 1 --track 3000..4000`,
   48,471 rounds, 10,904 decided) with Blox's LAS written in Python, against the `blox-sim`
   binary with the stock LAS: CPU time (user + sys) of whole processes, measured with
   /usr/bin/time, and of the run alone (time.process_time inside the process).
2. Per-round overhead of a Python policy with 100 active jobs: a 1-GPU cluster with a backlog
   of 100 one-round jobs and one arrival per round keeps ~100 jobs active for 2,000 decided
   rounds; the overhead per round is (Python run - stock run) / rounds, for a policy that
   returns `ctx.job_id` as it is (the call itself: snapshot, context, call, reading the
   result) and for LAS in Python (sorting on top).

Build both optimised for meaningful figures: `cargo build --release --bin blox-sim` and
`pip install ./python` (its default profile, `python-release`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

import bloxsim

README = dict(semantics="blox", load=1, track="3000..4000")
warnings.simplefilter("ignore", bloxsim.OverloadWarning)


class BloxLas:
    """Blox's LAS: starved first, then least attained wall-clock service, then job id."""

    def schedule(self, ctx):
        key = zip(ctx.priority, ctx.attained_wall_s, ctx.job_id)
        return [j for _, _, j in sorted(key)]


class Identity:
    """The cheapest policy: the job table's order (FIFO by id)."""

    calls = 0
    jobs = 0

    def schedule(self, ctx):
        ids = ctx.job_id
        Identity.calls += 1
        Identity.jobs += len(ids)
        return ids


def _cpu_of(cmd):
    """User + sys CPU seconds of a command, from /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as f:
        subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", f.name, *cmd], check=True, capture_output=True)
        u, s = f.read().split()[-2:]
        return float(u) + float(s)


def child(which: str) -> None:
    """Run the README configuration once in this process (for /usr/bin/time) and print the
    run's own CPU time."""
    bloxsim.register_policy("py-las", BloxLas)
    policy = {"py": "py-las", "rust": "las"}[which]
    t = time.process_time()
    r = bloxsim.run(policy=policy, **README)
    print(time.process_time() - t, r.avg_jct_s)


def backlog_trace() -> pd.DataFrame:
    n0, arrivals = 100, 2000
    return pd.DataFrame(
        {
            "arrival_s": [0.0] * n0 + [300.0 * (k + 1) for k in range(arrivals)],
            "n_gpus": 1,
            "duration_s": 300.0,
        }
    )


def per_round(repeat: int) -> None:
    trace = backlog_trace()
    bloxsim.register_policy("py-identity", Identity)
    bloxsim.register_policy("py-las", BloxLas)
    kw = dict(trace=trace, cluster="1x1", semantics="exact")

    def cpu(policy):
        best = []
        for _ in range(repeat):
            t = time.process_time()
            r = bloxsim.run(policy=policy, **kw)
            best.append(time.process_time() - t)
        return min(best), r

    stock, r0 = cpu("fifo")
    Identity.calls = Identity.jobs = 0
    ident, r1 = cpu("py-identity")
    calls = Identity.calls // repeat
    mean_jobs = Identity.jobs / Identity.calls
    las, r2 = cpu("py-las")
    las_rust, r3 = cpu("las")
    assert r1.files()["jobs.csv"] == r0.files()["jobs.csv"]
    print(f"per-round overhead, {calls} decided rounds with {mean_jobs:.1f} active jobs on average:")
    print(f"  stock fifo run          {stock * 1e3:8.2f} ms CPU")
    print(f"  Python identity policy  {ident * 1e3:8.2f} ms CPU  -> {(ident - stock) / calls * 1e6:6.1f} µs/round")
    print(f"  stock las run           {las_rust * 1e3:8.2f} ms CPU")
    print(f"  Python LAS              {las * 1e3:8.2f} ms CPU  -> {(las - las_rust) / calls * 1e6:6.1f} µs/round")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blox-sim", default=None, help="the CLI binary (default: target/release/blox-sim)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--child", choices=["py", "rust"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child)
        return
    repo = Path(__file__).resolve().parents[2]
    target = Path(os.environ.get("CARGO_TARGET_DIR", repo / "target"))
    cli = a.blox_sim or str(target / "release" / "blox-sim")
    print(f"{os.cpu_count()} cores; bloxsim {bloxsim.__version__} from {Path(bloxsim.__file__).parent}; CLI {cli}")
    print("Blox's README configuration (blox semantics, LAS, load 1, jobs 3000..4000), best of", a.repeat)
    cli_cpu = min(
        _cpu_of([cli, "run", "--semantics", "blox", "--policy", "las", "--load", "1", "--track", "3000..4000", "--progress", "never"])
        for _ in range(a.repeat)
    )
    rows = {}
    for which in ("rust", "py"):
        procs, runs = [], []
        for _ in range(a.repeat):
            with tempfile.NamedTemporaryFile("r", suffix=".time") as f:
                out = subprocess.run(
                    ["/usr/bin/time", "-f", "%U %S", "-o", f.name, sys.executable, __file__, "--child", which],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                u, s = f.read().split()[-2:]
            procs.append(float(u) + float(s))
            runs.append(float(out.stdout.split()[0]))
        rows[which] = (min(procs), min(runs), statistics.median(runs))
    print(f"  blox-sim CLI, stock LAS           process CPU {cli_cpu:7.3f} s")
    print(f"  bloxsim, stock LAS                process CPU {rows['rust'][0]:7.3f} s   run alone {rows['rust'][1]:7.3f} s")
    print(f"  bloxsim, LAS written in Python    process CPU {rows['py'][0]:7.3f} s   run alone {rows['py'][1]:7.3f} s")
    print()
    per_round(a.repeat)


if __name__ == "__main__":
    main()
