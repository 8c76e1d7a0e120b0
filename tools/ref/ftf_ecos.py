#!/usr/bin/env python3
"""Solve finish_time_fairness_perf programs (GAVEL-SEMANTICS §6.3) with cvxpy + ECOS.

Versions: Python 3.11, cvxpy 1.9.3, ecos 2.0.14, numpy 2.4.6 (a venv outside the repository:
`python3 -m venv V && V/bin/pip install cvxpy==1.9.3 ecos==2.0.14 numpy`).

The program is written the way §6.3 states it (rho_i with `inv_pos`, minimise the max over
jobs, the common constraints, ECOS's defaults). Reads one JSON problem per line on stdin
(keys T, s, c, since, rem, D, as blox-gavel writes them with BLOX_GAVEL_FTF_DUMP) and writes
one line per problem: the shares, rows separated by `;`, values by `,` (Python repr), or
`null` when the solver returns no value. It is an oracle for BLOX_GAVEL_FTF_ORACLE:

    BLOX_GAVEL_FTF_ORACLE="V/bin/python tools/ref/ftf_ecos.py" blox-sim run --semantics gavel ...

Each solve's status is logged to stderr (or appended to the file named by FTF_ECOS_LOG).
"""
import json
import os
import sys

import cvxpy as cp
import numpy as np


def build(p):
    T = np.array(p["T"], dtype=float)
    m, n = T.shape
    s = np.array(p["s"], dtype=float)
    sf = np.repeat(s[:, None], n, axis=1)
    c = [float(v) for v in p["c"]]
    x = cp.Variable((m, n))
    fr = []
    for i in range(m):
        # Gavel's denominator is a shape-(1,) numpy array (its isolated throughputs are a column).
        d = np.array([p["D"][i]])
        y = cp.sum(cp.multiply(T[i], x[i]))
        fr.append((p["since"][i] + p["rem"][i] * cp.inv_pos(y)) / d)
    obj = cp.Minimize(fr[0]) if m == 1 else cp.Minimize(cp.maximum(*fr))
    cons = [x >= 0, cp.sum(cp.multiply(sf, x), axis=0) <= c, cp.sum(x, axis=1) <= 1]
    return cp.Problem(obj, cons), x


def solve(p):
    """Solves with ECOS's defaults; FTF_SOLVER (a cvxpy solver name) and FTF_TOL (ECOS's
    abstol = reltol = feastol) change that, to measure how much the choice of optimum moves a
    run."""
    prob, x = build(p)
    solver = os.environ.get("FTF_SOLVER", "ECOS")
    opts = {}
    if "FTF_TOL" in os.environ:
        tol = float(os.environ["FTF_TOL"])
        opts = dict(abstol=tol, reltol=tol, feastol=tol)
    try:
        prob.solve(solver=solver, **opts)
        status = prob.status
    except cp.error.SolverError as e:
        status = "error: " + str(e)
    return prob, x, status


def main():
    log = open(os.environ["FTF_ECOS_LOG"], "a") if "FTF_ECOS_LOG" in os.environ else sys.stderr
    for line in sys.stdin:
        p = json.loads(line)
        prob, x, status = solve(p)
        print(status, len(p["T"]), prob.value, file=log, flush=True)
        if x.value is None:
            print("null", flush=True)
        else:
            print(";".join(",".join(repr(float(v)) for v in row) for row in x.value), flush=True)


if __name__ == "__main__":
    main()
