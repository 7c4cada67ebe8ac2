#!/usr/bin/env python3
"""Auto's time per case in two sets of `grain bench contract --algorithm auto` runs (before -- after),
each case's median over its set's runs: the ratio after / before per (kernel, case, dtype, layout),
its median and maximum, and the cases more than 5% slower after. Runs of one set should alternate
with the other's on the same machine (the same-run comparison of two builds).

usage: scripts/contract-compare.py BEFORE.json [...] -- AFTER.json [...]
"""
import json
import statistics
import sys


def medians(paths):
    times = {}
    for p in paths:
        d = json.load(open(p))
        for r in d["rows"]:
            if r["algorithm"] != "auto" and not r.get("selected"):
                continue
            key = (r["kernel"], r["case"], r["dtype"], "left" if r.get("layout_left") else "right")
            times.setdefault(key, []).append(r["ms"])
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    before, after = medians(argv[:cut]), medians(argv[cut + 1:])
    keys = sorted(set(before) & set(after))
    if not keys:
        sys.exit("contract-compare: no case in both sets")
    ratio = {k: after[k] / before[k] for k in keys}
    r = sorted(ratio.values())
    print(f"Auto after / before over {len(keys)} cases: median {statistics.median(r):.3f}, "
          f"min {r[0]:.3f}, max {r[-1]:.3f}; {sum(x > 1.05 for x in r)} more than 5% slower")
    for k in sorted(keys, key=lambda k: -ratio[k])[:10]:
        print(f"  {' '.join(k):40s} before {before[k]:.4f} ms  after {after[k]:.4f} ms  x{ratio[k]:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
