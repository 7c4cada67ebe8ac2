#!/usr/bin/env python3
"""Summary of cpu-ab.sh output: per (kernel, case, dtype), each variant's algorithms' fastest and
median time over the rounds (files NAME-ROUND.json in DIR).

usage: ab-summary.py DIR
"""
import collections
import glob
import json
import os
import statistics
import sys

times = collections.defaultdict(list)
names = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name = os.path.basename(path).rsplit("-", 1)[0]
    if name not in names:
        names.append(name)
    for r in json.load(open(path))["rows"]:
        times[(r["kernel"], r["case"], r["dtype"], name, r["algorithm"])].append(r["ms"])
cols = sorted({(k[3], k[4]) for k in times}, key=lambda c: (names.index(c[0]), c[1]))
print("kernel case dtype | " + " | ".join(f"{n} {a} min/median ms" for n, a in cols))
for shape in sorted({k[:3] for k in times}, key=lambda s: (s[0], s[1], s[2] != "float")):
    cells = []
    for n, a in cols:
        t = times.get(shape + (n, a))
        cells.append(f"{min(t):.3f}/{statistics.median(t):.3f}" if t else "-")
    print(" ".join(shape), "|", " | ".join(cells))
