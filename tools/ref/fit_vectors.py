#!/usr/bin/env python3
"""Reference runs of the throughput-model fit by scipy's L-BFGS-B (POLLUX-SEMANTICS §5.1,
SIA-SEMANTICS §4.2, §13.3), for blox-pollux's `lbfgsb3` minimiser to replay.

Versions (those of the Sia/Pollux artifacts' environment): scipy 1.10.1, numpy 1.24.4,
autograd 1.9.1, Python 3.  Run it from the repository root, in a scratch environment outside
the repository:

    python3 -m venv /tmp/venv-ref
    /tmp/venv-ref/bin/pip install scipy==1.10.1 'numpy<1.25' autograd==1.9.1
    /tmp/venv-ref/bin/python tools/ref/fit_vectors.py \
        --sia-traces /path/to/sia-data/traces > blox-pollux/tests/data/lbfgsb_scipy.json

`--sia-traces` is the `traces/` folder of the Sia data (tools/fetch-sia-data.sh); without it the
Sia-derived cases are left out.  The committed file is written WITHOUT it: the Sia-derived
cases' profile rows are numbers read from the Sia data, which has no licence and is never
committed (write them elsewhere to study them).

The objective is the artifact's `_obj_fn` as §5.1 states it: RMSE of log compute time
(step − sync) plus RMSE of log step time plus `1e-3 (γ − 1)²` plus
`1e-2 ((β_n/α_n)² + (β_r/α_r)²)`, start `(0.1, 0.01) × 3, 1.001`, bounds α, β ≥ 1e-8,
γ ∈ [1, 10], parameters pinned by equal bounds, autograd gradient, one
`scipy.optimize.minimize(method='L-BFGS-B')` call: `tol=1e-5` for Sia, scipy's defaults for
Pollux.  Each case records the profile, the options, scipy's final x, fun, nit, nfev, message
and the iterate trail (x and f after each iteration, from the callback).  Floats are written as
decimal strings that round-trip exactly.
"""

import argparse
import csv
import json
import os
import sys

import autograd
import autograd.numpy as anp
import numpy as onp
import scipy
import scipy.optimize

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rmse(pred, true):
    return anp.sqrt(((pred - true) ** 2).mean())


def objective(params, num_nodes, num_replicas, atomic_bsz, accum_step_time, optim_step_time):
    alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma = [params[i] for i in range(7)]
    pred_accum = alpha_c + beta_c * atomic_bsz
    conds = [num_nodes > 1, num_replicas > 1]
    bottleneck = anp.select(conds, [alpha_n, alpha_r], 1e-8)
    retrogress = anp.select(conds, [beta_n, beta_r], 1e-8)
    retrogress = retrogress * anp.maximum(num_replicas - 2, 1e-8)
    pred_network = bottleneck + retrogress
    pred_log_optim = anp.log(pred_accum ** gamma + pred_network ** gamma) / gamma
    err1 = rmse(anp.log(pred_accum), anp.log(accum_step_time))
    err2 = rmse(pred_log_optim, anp.log(optim_step_time))
    reg1 = 1e-3 * (gamma - 1) ** 2
    reg2 = 1e-2 * ((beta_n / alpha_n) ** 2 + (beta_r / alpha_r) ** 2)
    return err1 + err2 + reg1 + reg2


def fit(rows, tol):
    """One fit as the artifact runs it; `tol` None for Pollux (scipy defaults)."""
    num_nodes = onp.array([r[0] for r in rows])
    num_replicas = onp.array([r[1] for r in rows])
    atomic_bsz = onp.array([r[2] for r in rows])
    accum_step_time = onp.array([r[3] - r[4] for r in rows])
    optim_step_time = onp.array([r[3] for r in rows])
    params = [1e-1, 1e-2] * 3 + [1.0 + 1e-3]
    lower = [1e-8, 1e-8] * 3 + [1.0]
    upper = [onp.inf, onp.inf] * 3 + [10.0]
    if len(onp.unique(atomic_bsz)) == 1:
        params[0] = upper[0] = lower[0] = onp.mean(accum_step_time) / 2
    if not onp.any(num_nodes > 1):
        params[2] = upper[2] = lower[2]
        params[3] = upper[3] = lower[3]
    if not onp.any(onp.logical_and(num_nodes == 1, num_replicas > 1)):
        params[4] = upper[4] = lower[4]
        params[5] = upper[5] = lower[5]
    if not onp.any(num_replicas > 2):
        params[3] = upper[3] = lower[3]
        params[5] = upper[5] = lower[5]
    bounds = scipy.optimize.Bounds(lower, upper, keep_feasible=True)
    args = (num_nodes, num_replicas, atomic_bsz, accum_step_time, optim_step_time)
    trail = []

    def callback(xk):
        trail.append((list(map(float, xk)), float(objective(xk, *args))))

    kw = {} if tol is None else {"tol": tol}
    res = scipy.optimize.minimize(objective, params, args=args, jac=autograd.grad(objective),
                                  bounds=bounds, method="L-BFGS-B", callback=callback, **kw)
    return {
        "x0": params,
        "lower": lower,
        "upper": upper,
        "res": res,
        "trail": trail,
    }


def s(v):
    return repr(float(v))


def case(name, rows, tol):
    out = fit(rows, tol)
    res = out["res"]
    return {
        "name": name,
        "tol": None if tol is None else s(tol),
        "profile": [[int(n), int(r), int(b), s(st), s(sy)] for (n, r, b, st, sy) in rows],
        "x": [s(v) for v in res.x],
        "fun": s(res.fun),
        "nit": int(res.nit),
        "nfev": int(res.nfev),
        "message": str(res.message),
        "trail": [{"x": [s(v) for v in x], "f": s(f)} for (x, f) in out["trail"]],
    }


def read_placements(path):
    """(nodes, replicas, local_bsz) -> (step, sync) from a placements file."""
    table = {}
    with open(path) as fh:
        for row in csv.DictReader(fh):
            p = row["placement"]
            key = (len(p), sum(int(c) for c in p), int(row["local_bsz"]))
            table.setdefault(key, (float(row["step_time"]), float(row["sync_time"])))
    return table


def pick(table, keys):
    return [(k[0], k[1], k[2]) + table[k] for k in keys if k in table]


def synthetic(truth, keys, noise_seed=None):
    rng = onp.random.default_rng(noise_seed) if noise_seed is not None else None
    a_c, b_c, a_n, b_n, a_r, b_r, g = truth
    rows = []
    for (n, r, b) in keys:
        acc = a_c + b_c * b
        if n > 1:
            net = a_n + b_n * max(r - 2, 1e-8)
        elif r > 1:
            net = a_r + b_r * max(r - 2, 1e-8)
        else:
            net = 1e-8 + 1e-8 * max(r - 2, 1e-8)
        step = (acc ** g + net ** g) ** (1 / g)
        sync = step - acc
        if rng is not None:
            step *= float(onp.exp(rng.normal(0, 0.05)))
            sync = min(sync * float(onp.exp(rng.normal(0, 0.05))), 0.9 * step)
        rows.append((n, r, b, step, max(sync, 1e-6)))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sia-traces", help="the Sia data's traces/ folder")
    a = ap.parse_args()
    SIA, POLLUX = 1e-5, None
    cases = []
    truth = (0.01, 0.0004, 0.05, 0.003, 0.008, 0.001, 1.5)
    many = [(1, 1, 32), (1, 1, 128), (1, 2, 64), (1, 4, 64), (2, 8, 128), (4, 16, 256)]
    for tol, tag in ((SIA, "sia"), (POLLUX, "pollux")):
        cases.append(case(f"synthetic-exact-{tag}", synthetic(truth, many), tol))
        cases.append(case(f"synthetic-noisy-{tag}", synthetic(truth, many, 7), tol))
        cases.append(case(f"synthetic-one-gpu-{tag}", synthetic(truth, [(1, 1, 64)]), tol))
        cases.append(case(f"synthetic-two-batches-{tag}",
                          synthetic(truth, [(1, 1, 32), (1, 1, 96)], 3), tol))
        # Full overlap of compute and network: γ runs to its upper bound.
        cases.append(case(f"synthetic-overlap-{tag}",
                          synthetic((0.02, 0.001, 0.03, 0.002, 0.01, 0.0005, 10.0),
                                    [(1, 1, 16), (1, 2, 32), (1, 4, 32), (2, 8, 64),
                                     (3, 12, 64)], 11), tol))
        cases.append(case(f"synthetic-one-batch-multinode-{tag}",
                          synthetic(truth, [(1, 1, 12), (1, 2, 12), (1, 4, 12), (2, 8, 12)], 5),
                          tol))
    # The bert profile that once sent blox's fit astray (blox-pollux goodput tests).
    bert = [(1, 1, 12, 0.9215156733989716, 0.013695754051208497),
            (1, 2, 12, 0.9190408140420914, 0.05467441153526306),
            (1, 4, 12, 0.9571182131767273, 0.09286786985397338),
            (2, 8, 12, 2.538950562477112, 1.6628430938720702)]
    cases.append(case("bert-one-batch-sia", bert, SIA))
    cases.append(case("bert-one-batch-pollux", bert, POLLUX))
    # Pollux's own traces (the repository's traces/pollux, Apache-2.0).
    pt = os.path.join(REPO, "traces", "pollux", "traces")
    growth = [[(1, 1, 32)], [(1, 1, 32), (1, 2, 32)], [(1, 1, 32), (1, 2, 32), (1, 4, 64)],
              [(1, 1, 32), (1, 2, 32), (1, 4, 64), (2, 8, 64)],
              [(1, 1, 32), (1, 2, 32), (1, 4, 64), (2, 8, 64), (4, 16, 128), (1, 4, 128)]]
    for model in ("cifar10", "imagenet", "deepspeech2", "yolov3", "ncf"):
        path = os.path.join(pt, model, "placements.csv")
        if not os.path.exists(path):
            continue
        table = read_placements(path)
        bsz = sorted({k[2] for k in table})
        lo, mid = bsz[0], bsz[len(bsz) // 2]
        keys = [(1, 1, lo), (1, 2, lo), (1, 4, mid), (2, 8, mid), (4, 16, mid), (1, 1, mid)]
        rows = pick(table, keys)
        if len(rows) >= 3:
            cases.append(case(f"pollux-{model}-pollux", rows, POLLUX))
            cases.append(case(f"pollux-{model}-sia", rows, SIA))
    # Sia's per-type traces: profiles growing as a job's would.
    if a.sia_traces:
        for model, gpu in (("cifar10", "aws"), ("bert", "rtx"), ("deepspeech2", "dgx-ext"),
                           ("imagenet", "aws"), ("yolov3", "rtx"), ("ncf", "dgx-ext")):
            path = os.path.join(a.sia_traces, model, f"placements-{gpu}.csv")
            if not os.path.exists(path):
                continue
            table = read_placements(path)
            bsz = sorted({k[2] for k in table if k[:2] == (1, 1)})
            if not bsz:
                continue
            b0, b1 = bsz[0], bsz[min(2, len(bsz) - 1)]
            seqs = [[(1, 1, b0)], [(1, 1, b0), (1, 2, b0)], [(1, 1, b0), (1, 1, b1)],
                    [(1, 1, b0), (1, 2, b0), (1, 4, b1)],
                    [(1, 1, b0), (1, 2, b0), (1, 4, b1), (2, 8, b1), (2, 4, b0)]]
            for i, keys in enumerate(seqs):
                rows = pick(table, keys)
                if rows:
                    cases.append(case(f"sia-{model}-{gpu}-{i}-sia", rows, SIA))
            rows = pick(table, seqs[-1])
            if rows:
                cases.append(case(f"sia-{model}-{gpu}-4-pollux", rows, POLLUX))
    # One case a line: compact, and a regenerated case shows as one changed line.
    head = {"generator": "tools/ref/fit_vectors.py", "scipy": scipy.__version__,
            "numpy": onp.__version__, "autograd": "1.9.1"}
    out = json.dumps(head, separators=(",", ":"))[:-1] + ',"cases":[\n'
    out += ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    sys.stdout.write(out + "\n]}\n")


if __name__ == "__main__":
    main()
