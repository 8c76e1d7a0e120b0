"""Tabulate the 3-D Delaunay triangulation the Pollux artifact interpolates step times on.

The artifact (petuum/adaptdl, osdi21-artifact, simulator/applications.py) builds scipy's
LinearNDInterpolator over (num_nodes, num_replicas, local_bsz): the per-triple means of
placements.csv followed by every row of scalability.csv. The points lie on a grid, so qhull's
triangulation is not unique (and not even conforming); blox-pollux ships the triangulation qhull
produced and re-implements scipy's point location on it. Values are not stored: they are read
from the traces at run time.

Usage: python tools/pollux_delaunay.py TRACES_DIR OUT_DIR   (needs numpy, pandas, scipy)
Writes OUT_DIR/<app>.txt: `paraboloid SCALE SHIFT`, `points N` + N lines `nodes replicas bsz`,
`simplices M` + M lines `v0 v1 v2 v3 n0 n1 n2 n3` (neighbour k is opposite vertex k, -1 none),
then `equations K` + K lines `i a b c d e`: qhull's hyperplane of simplex i on the lifted
paraboloid wherever it differs from the plane through the simplex's own lifted vertices (merged
and flat facets); blox-pollux computes the others itself.
"""
import os
import sys

import numpy as np
import pandas
from scipy.spatial import Delaunay

traces, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for app in ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"]:
    p = pandas.read_csv(os.path.join(traces, app, "placements.csv"))
    p["num_nodes"] = p.placement.apply(lambda x: len(str(x)))
    p["num_replicas"] = p.placement.apply(lambda x: sum(map(int, str(x))))
    xs = ["num_nodes", "num_replicas", "local_bsz"]
    df = p.groupby(xs)[xs].mean()
    s = pandas.read_csv(os.path.join(traces, app, "scalability.csv"))
    pts = np.concatenate([df[xs].values, s[xs].values]).astype(float)
    d = Delaunay(pts)
    with open(os.path.join(out, app + ".txt"), "w") as f:
        f.write("# scipy.spatial.Delaunay (qhull) of (num_nodes, num_replicas, local_bsz)\n")
        f.write("paraboloid %r %r\n" % (float(d.paraboloid_scale), float(d.paraboloid_shift)))
        f.write("points %d\n" % len(pts))
        for x in pts.astype(int):
            f.write("%d %d %d\n" % tuple(x))
        f.write("simplices %d\n" % len(d.simplices))
        for sx, nb in zip(d.simplices, d.neighbors):
            f.write(" ".join(map(str, list(sx) + list(nb))) + "\n")
        lift = np.column_stack(
            [pts, (pts ** 2).sum(1) * d.paraboloid_scale + d.paraboloid_shift])
        over = []
        for i, sx in enumerate(d.simplices):
            a = lift[sx[1:]] - lift[sx[0]]
            n = np.array([(-1) ** k * np.linalg.det(np.delete(a, k, axis=1)) for k in range(4)])
            norm = np.linalg.norm(n)
            ok = False
            if norm > 0:
                n = n / norm
                if n[3] > 0:
                    n = -n
                e = np.append(n, -n @ lift[sx[0]])
                ok = np.abs(e - d.equations[i]).max() < 1e-11
            if not ok:
                over.append((i, d.equations[i]))
        f.write("equations %d\n" % len(over))
        for i, e in over:
            f.write("%d %s\n" % (i, " ".join(repr(float(v)) for v in e)))
