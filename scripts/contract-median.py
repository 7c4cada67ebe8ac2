#!/usr/bin/env python3
"""Per-case medians over several `grain bench contract` JSON files of the same suite (a noisy
machine: the copy ceiling itself moves between runs). For each (kernel, case, dtype) it prints
Auto's pick, the median over the runs of its roofline (each run's own floor), of its time against
each run's best algorithm, and of the peer's time over Auto's, then the cases below a roofline of
0.7, behind the peer, or more than 10% behind the best. Where the runs carry local rooflines
(against the copy measured just before and after each shape), their median is a
column too, and the cases below 0.7 on it are listed as well.

usage: scripts/contract-median.py RUN.json [RUN.json ...]
"""
import json
import statistics
import sys


def load(path):
    d = json.load(open(path))
    rows = {}
    for r in d["rows"]:
        rows[(r["kernel"], r["case"], r["dtype"], r["algorithm"])] = r
    return d, rows


def main(paths):
    runs = [load(p) for p in paths]
    per = {}
    for d, rows in runs:
        keys = {k[:3] for k in rows}
        for key in keys:
            mine = [r for k, r in rows.items() if k[:3] == key and not k[3].endswith(("-gemm", "-batched"))]
            sel = [r for r in mine if r.get("selected")]
            if not sel:
                continue
            auto = sel[0]
            best = min(r["ms"] for r in mine)
            peer = [r for k, r in rows.items() if k[:3] == key and k[3].endswith(("-gemm", "-batched"))]
            e = per.setdefault(key, {"alg": [], "roof": [], "local": [], "best": [], "peer": []})
            e["alg"].append(auto["algorithm"])
            e["roof"].append(auto["roofline"])
            if "roofline_local" in auto:
                e["local"].append(auto["roofline_local"])
            e["best"].append(auto["ms"] / best)
            if peer:
                e["peer"].append(peer[0]["ms"] / auto["ms"])
    copies = [d["copy_GBps"] for d, _ in runs]
    print("runs: %d, copy GB/s %s" % (len(runs), " ".join("%.1f" % c for c in copies)))
    print("| kernel | case | dtype | Auto | roofline (median) | local (median) | auto/best (median) | peer/Auto (median) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    low, low_local, behind, far = [], [], [], []
    for key in sorted(per):
        e = per[key]
        roof = statistics.median(e["roof"])
        ab = statistics.median(e["best"])
        pa = statistics.median(e["peer"]) if e["peer"] else None
        alg = max(set(e["alg"]), key=e["alg"].count)
        loc = statistics.median(e["local"]) if e["local"] else None
        print("| %s | %s | %s | %s | %.2f | %s | %.2f | %s |" % (key + (alg, roof, "%.2f" % loc if loc else "-", ab,
                                                                "%.2f" % pa if pa else "-")))
        if roof < 0.7:
            low.append("%s %s %s %.2f" % (key + (roof,)))
        if loc is not None and loc < 0.7:
            low_local.append("%s %s %s %.2f" % (key + (loc,)))
        if pa is not None and pa < 1.0:
            behind.append("%s %s %s %.2f" % (key + (pa,)))
        if ab > 1.10:
            far.append("%s %s %s %.2f" % (key + (ab,)))
    print("\nroofline below 0.7: %d: %s" % (len(low), "; ".join(low)))
    if any(per[k]["local"] for k in per):
        print("local roofline below 0.7: %d: %s" % (len(low_local), "; ".join(low_local)))
    print("behind the peer: %d: %s" % (len(behind), "; ".join(behind)))
    print("Auto more than 10%% behind the best: %d: %s" % (len(far), "; ".join(far)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
