#!/usr/bin/env python3
"""Summarizes a `grain bench contract` result file as the Markdown table docs/performance.md shows.

One row a kernel and element type: the roofline of Auto's pick in each case (against the copy
measured beside the row where the file has it, else the run's ceiling), Auto's time over the
fastest grain algorithm's (worst case), the BLAS peer's time over Auto's (FieldField), and
torch.einsum's over Auto's (least) when a torch file of the same device is given.

    python3 scripts/results-summary.py SUITE.json [TORCH.json]
"""
import json
import sys

PEERS = {"cublas-strided-batched", "openblas-gemm", "torch-einsum"}
CASES = ["Q1", "Q2", "Q3", "Q4"]


def load(path):
    with open(path) as f:
        return json.load(f)


def main(argv):
    if not 1 <= len(argv) <= 2:
        sys.exit(__doc__)
    suite = load(argv[0])
    torch = load(argv[1])["rows"] if len(argv) == 2 else []
    rows = suite["rows"]
    left = rows[0].get("layout_left", 0) if rows else 0
    local = any("roofline_local" in r for r in rows)
    shapes = {}
    for r in rows:
        shapes.setdefault((r["kernel"], r["dtype"], r["case"]), []).append(r)
    torch_ms = {(r["kernel"], r["dtype"], r["case"]): r["ms"] for r in torch
                if r.get("layout_left", 0) == left}
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    dtypes = [d for d in ("float", "double") if any(r["dtype"] == d for r in rows)]
    head = ["kernel", "dtype"] + [f"{c} roofline" for c in CASES] + ["auto/best (worst)", "peer/auto", "torch/auto (least)"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for k in kernels:
        for d in dtypes:
            roof, worst, peer, tmin = [], 0.0, [], None
            for c in CASES:
                group = shapes.get((k, d, c), [])
                pick = next((r for r in group if r.get("selected")), None)
                grain = [r for r in group if r["algorithm"] not in PEERS and r["algorithm"] != "serial"]
                if pick is None or not grain:
                    roof.append("")
                    continue
                roof.append(f"{pick.get('roofline_local', pick['roofline']) if local else pick['roofline']:.2f}")
                worst = max(worst, pick["ms"] / min(r["ms"] for r in grain))
                for r in group:
                    if r["algorithm"] in ("cublas-strided-batched", "openblas-gemm"):
                        peer.append(r["ms"] / pick["ms"])
                if (k, d, c) in torch_ms:
                    t = torch_ms[(k, d, c)] / pick["ms"]
                    tmin = t if tmin is None else min(tmin, t)
            p = f"{min(peer):.2f}-{max(peer):.2f}" if peer else ""
            t = f"{tmin:.2f}" if tmin is not None else ""
            print(f"| {k} | {d} | " + " | ".join(roof) + f" | {worst:.2f} | {p} | {t} |")


if __name__ == "__main__":
    main(sys.argv[1:])
