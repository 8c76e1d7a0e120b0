#!/usr/bin/env python3
"""The cone program cvxpy hands to ECOS, as JSON for `blox-gavel`'s `ecos_program` diagnostic.

Needs cvxpy 1.9.3 and ecos 2.0.14 (a venv outside the repository, as for `ftf_ecos.py`).
`write(problem, path)` writes `problem.get_problem_data(cp.ECOS)` (c, h, G in compressed
columns, the orthant's size and the second-order cones' sizes) and returns ECOS's own answer
(status, iterations, the variables' values); then

    BLOX_GAVEL_ECOS_PROGRAM=PATH cargo test -p blox-gavel --lib ecos_program -- --ignored --nocapture

prints what `blox-gavel`'s ECOS does with the same program, to compare iterate by iterate
(`BLOX_GAVEL_ECOS_TRACE=1`) or by the final point. Run as a script, it writes Gavel's
heterogeneity-agnostic `max_min_fairness` program for M jobs (seeded scale factors, weight 1,
4:4:4 GPUs) and prints ECOS's shares:

    V/bin/python tools/ref/ecos_data.py OUT.json [M] [SEED]
"""

import json
import sys

import cvxpy as cp
import numpy as np


def write(problem, path):
    data, _, _ = problem.get_problem_data(cp.ECOS)
    g = data["G"].tocsc()
    out = {
        "c": [float(v) for v in data["c"]],
        "h": [float(v) for v in data["h"]],
        "indptr": [int(v) for v in g.indptr],
        "indices": [int(v) for v in g.indices],
        "data": [float(v) for v in g.data],
        "l": [int(data["dims"].nonneg)],
        "soc": [int(v) for v in data["dims"].soc],
    }
    if data.get("A") is not None and data["A"].shape[0] > 0:
        raise SystemExit("the program has equality rows, which blox-gavel's ECOS does not take")
    with open(path, "w") as f:
        json.dump(out, f)
    problem.solve(solver=cp.ECOS)
    return problem.status, problem.solver_stats.num_iters


def main():
    path = sys.argv[1]
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rng = np.random.RandomState(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    counts = [4, 4, 4]
    n = len(counts)
    sf = rng.choice([1, 1, 1, 2, 4], size=m).astype(float)
    sfa = np.array([[s] * n for s in sf])
    # Gavel's coefficients (policies/max_min_fairness.py with every throughput 1.0).
    t = np.ones((m, n))
    x_prop = np.array([[c / m for c in counts] for _ in range(m)])
    x_prop = x_prop / np.sum(x_prop, axis=1).max()
    prop = np.sum(np.multiply(t, x_prop), axis=1).reshape((m, 1))
    pw = np.multiply(np.ones((m, 1)), 1.0 / prop)
    coef = np.multiply(t * pw.reshape((m, 1)), sfa)
    x = cp.Variable((m, n))
    problem = cp.Problem(
        cp.Maximize(cp.min(cp.sum(cp.multiply(coef, x), axis=1))),
        [x >= 0, cp.sum(cp.multiply(sfa, x), axis=0) <= counts, cp.sum(x, axis=1) <= 1],
    )
    status, iterations = write(problem, path)
    print("status", status, "iterations", iterations)
    for row in x.value:
        print("x", " ".join(repr(float(v)) for v in row))


if __name__ == "__main__":
    main()
