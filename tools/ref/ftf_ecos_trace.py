#!/usr/bin/env python3
"""Runs ECOS (verbose) on one finish_time_fairness_perf program, to compare iterate by iterate
with blox-gavel's ECOS-faithful solver (blox-gavel/src/ecos.rs).

Versions: Python 3.11, cvxpy 1.9.3, ecos 2.0.14 (ECOS 2.0.10 inside), numpy 2.4.6, scipy.

Usage: ftf_ecos_trace.py DUMP.jsonl LINE [MAX_ITERS]

With MAX_ITERS, ECOS stops after that many iterations and the shares printed are that iterate's
(x / tau; compare with BLOX_GAVEL_ECOS_MAXIT=MAX_ITERS on the Rust side).

DUMP.jsonl holds lines written by a run with BLOX_GAVEL_FTF_DUMP set (LINE is 0-based). Prints
the cone program's sizes, ECOS's iteration table and its shares, one job a line (`x v1 .. vn`),
as

    BLOX_GAVEL_ECOS_TRACE=1 BLOX_GAVEL_ECOS_PROBLEM=DUMP.jsonl:LINE \
        cargo test -p blox-gavel ecos_dump -- --ignored --nocapture

prints them for blox-gavel (its table with more digits: it, pcost, dcost, gap, pres, dres, k/t,
mu, step, sigma).
"""
import json
import sys

import cvxpy as cp
import ecos
import scipy.sparse as sp

from ftf_ecos import build


def main():
    p = json.loads(open(sys.argv[1]).readlines()[int(sys.argv[2])])
    prob, _ = build(p)
    data, _, _ = prob.get_problem_data(cp.ECOS)
    dims = {"l": data["dims"].nonneg, "q": list(data["dims"].soc)}
    G = sp.csc_matrix(data["G"])
    print(f"variables {G.shape[1]}, rows {G.shape[0]} (LP {dims['l']}, SOC {dims['q']})")
    opts = {"max_iters": int(sys.argv[3])} if len(sys.argv) > 3 else {}
    sol = ecos.solve(data["c"], G, data["h"], dims, verbose=True, **opts)
    m, n = len(p["T"]), len(p["c"])
    X = sol["x"]
    for i in range(m):
        col = [1 + w * m + i if m > 1 else 1 + w for w in range(n)]
        print("x", " ".join(repr(float(X[k])) for k in col))


if __name__ == "__main__":
    main()
