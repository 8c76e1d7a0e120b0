#!/usr/bin/env python3
"""Builds blox-gavel's `ftf_ecos_vectors.txt` and `ftf_ecos_shares.txt`: finish_time_fairness_perf
programs with the optimum Gavel's solver (cvxpy + ECOS, as GAVEL-SEMANTICS §6.3 writes the
program) finds.

`ftf_ecos_shares.txt` is every solve of artifact_evaluation.trace and highmem_test.trace on 4:4:4,
R = 360 s, seed 0 (`blox-sim run --semantics gavel ... --policy finish_time_fairness_perf` with
BLOX_GAVEL_FTF_DUMP): ae444_r360_sK = artifact_evaluation line K (K = 0, 1, 2), hm444_r360_sK =
highmem_test line K (K = 0, 1).

Versions used for the committed file: Python 3.11, cvxpy 1.9.3, ecos 2.0.14, numpy 2.4.6.

Usage: ftf_ecos_vectors.py OUT NAME=DUMP.jsonl:LINE [NAME=DUMP.jsonl:LINE ...]

DUMP.jsonl are lines written by a run with BLOX_GAVEL_FTF_DUMP set (see
blox-gavel/src/ftf_debug.rs); LINE is 0-based. Output format, one problem after another:

    problem NAME m n STATUS MAX_RHO
    counts c_1 .. c_n
    job s since rem D T_1 .. T_n x_1 .. x_n      (m lines; x = ECOS's shares, unclipped)
"""
import json
import sys

import numpy as np

from ftf_ecos import solve


def main():
    out = open(sys.argv[1], "w")
    out.write("# finish_time_fairness_perf programs solved by cvxpy 1.9.3 + ECOS 2.0.14 "
              "(tools/ref/ftf_ecos_vectors.py)\n")
    for arg in sys.argv[2:]:
        name, rest = arg.split("=", 1)
        path, line = rest.rsplit(":", 1)
        p = json.loads(open(path).readlines()[int(line)])
        prob, x, status = solve(p)
        X = x.value
        T = np.array(p["T"], dtype=float)
        since = np.array(p["since"]); rem = np.array(p["rem"]); D = np.array(p["D"])
        rho = (since + rem / (T * X.clip(0.0, 1.0)).sum(axis=1)) / D
        m, n = T.shape
        out.write(f"problem {name} {m} {n} {status} {float(rho.max())!r}\n")
        out.write("counts " + " ".join(str(c) for c in p["c"]) + "\n")
        for i in range(m):
            vals = [p["s"][i], p["since"][i], p["rem"][i], p["D"][i]] + p["T"][i] + list(X[i])
            out.write("job " + " ".join(repr(float(v)) if not isinstance(v, int) else str(v)
                                       for v in vals) + "\n")


if __name__ == "__main__":
    main()
