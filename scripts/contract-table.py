#!/usr/bin/env python3
"""Markdown table of Auto against the floor and the peers, from `grain bench contract --json`
files and (optionally) a `bench/torch_einsum.py --json` file of the same run.

    python3 scripts/contract-table.py SUITE.json [TORCH.json] [--kernels FieldField]

One row per (kernel, case, dtype): Auto's pick, its time and roofline, the fastest grain
algorithm, auto/best, and the cuBLAS / OpenBLAS and torch.einsum times with peer/Auto (> 1:
grain ahead). torch.einsum's time is the one on inputs in the suite's layout where the torch file
has it (`torch_einsum.py --layout left|both`), else on row-major inputs; for a LayoutLeft suite
with both in the file, a last column gives torch on row-major inputs as well.

The BLAS peers read row-major cells, so a LayoutLeft suite times them on LayoutRight copies made
outside the timing. A user holding LayoutLeft data must also transpose both operands into that
form and the output back: at least 2 (bytes) / (copy bandwidth) more, since each of those bytes
is read and written once more. For a LayoutLeft suite, the column "peer + copies (bound) / Auto"
divides that lower bound, the peer's time plus 2 bytes / copy_GBps, by Auto's time.

--by-kernel prints the table docs/performance.md shows instead: one row a kernel and element type,
the roofline of Auto's pick in each case (against the copy measured beside the row where the file
has it, `roofline_local`, else the run's ceiling), the worst auto/best, the range of peer/Auto and
the least torch/Auto."""
import argparse
import json

PEERS = ("cublas-strided-batched", "openblas-gemm")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite")
    ap.add_argument("torch", nargs="?")
    ap.add_argument("--kernels", default="", help="only kernels whose name contains this")
    ap.add_argument("--by-kernel", action="store_true", help="one row a kernel and element type")
    a = ap.parse_args()
    suite = json.load(open(a.suite))
    rows = [r for r in suite["rows"] if a.kernels in r["kernel"]]
    torch = {}
    if a.torch:
        for r in json.load(open(a.torch))["rows"]:
            torch[(r["kernel"], r["case"], r["dtype"], r.get("layout_left", 0))] = r["ms"]
    left = bool(rows) and rows[0].get("layout_left", 0) == 1
    both = left and any(k[3] == 1 for k in torch) and any(k[3] == 0 for k in torch)
    keys = []
    for r in rows:
        k = (r["kernel"], r["case"], r["dtype"])
        if k not in keys:
            keys.append(k)
    shapes = []  # (key, Auto's row, the fastest grain row, the peer row or None, torch ms, torch row-major ms)
    for k in keys:
        mine = [r for r in rows if (r["kernel"], r["case"], r["dtype"]) == k]
        grain_rows = [r for r in mine if r["algorithm"] not in PEERS]
        auto = [r for r in grain_rows if r.get("selected")]
        if not auto:
            continue
        peer = [r for r in mine if r["algorithm"] in PEERS]
        shapes.append((k, auto[0], min(grain_rows, key=lambda r: r["ms"]), peer[0] if peer else None,
                       torch.get(k + (1 if left else 0,), torch.get(k + (0,))), torch.get(k + (0,))))
    if a.by_kernel:
        by_kernel(shapes)
        return
    print("Device %s, copy %.0f GB/s, GEMM peak %.0f / %.0f GFLOP/s (float / double)." %
          (suite["device"], suite["copy_GBps"], suite["peak_GFLOPs"]["float"], suite["peak_GFLOPs"]["double"]))
    print()
    print("| kernel | case | dtype | Auto | Auto ms | roofline | best (ms) | auto/best | peer ms | peer/Auto |"
          + (" peer + copies (bound) / Auto |" if left else "") + " torch ms | torch/Auto |"
          + (" torch row-major / Auto |" if both else ""))
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if left else "")
          + " --- | --- |" + (" --- |" if both else ""))
    for k, auto, best, peer, t, t_rm in shapes:
        bound = "-"
        if peer and left:
            copies_ms = 2.0 * auto["bytes"] / (suite["copy_GBps"] * 1e9) * 1e3
            bound = "%.2f" % ((peer["ms"] + copies_ms) / auto["ms"])
        print(("| %s | %s | %s | %s | %.3f | %.2f | %s (%.3f) | %.2f | %s | %s |%s %s | %s |" % (
            k[0], k[1], k[2], auto["algorithm"], auto["ms"], auto["roofline"], best["algorithm"], best["ms"],
            auto["ms"] / best["ms"],
            "%.3f" % peer["ms"] if peer else "-", "%.2f" % (peer["ms"] / auto["ms"]) if peer else "-",
            (" %s |" % bound) if left else "",
            "%.3f" % t if t else "-", "%.2f" % (t / auto["ms"]) if t else "-"))
              + ((" %s |" % ("%.2f" % (t_rm / auto["ms"]) if t_rm else "-")) if both else ""))


def by_kernel(shapes):
    cases = ["Q1", "Q2", "Q3", "Q4"]
    head = ["kernel", "dtype"] + ["%s roofline" % c for c in cases] + ["auto/best (worst)", "peer/auto",
                                                                        "torch/auto (least)"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    groups = {}
    for shape in shapes:
        groups.setdefault(shape[0][0], {}).setdefault(shape[0][2], {})[shape[0][1]] = shape
    for kernel, dtypes in groups.items():
        for dtype in [d for d in ("float", "double") if d in dtypes]:
            got = dtypes[dtype]
            roof = ["%.2f" % got[c][1].get("roofline_local", got[c][1]["roofline"]) if c in got else "" for c in cases]
            worst = max(auto["ms"] / best["ms"] for _, auto, best, _, _, _ in got.values())
            peer = [p["ms"] / auto["ms"] for _, auto, _, p, _, _ in got.values() if p]
            torch = [t / auto["ms"] for _, auto, _, _, t, _ in got.values() if t]
            print("| %s | %s | %s | %.2f | %s | %s |" % (
                kernel, dtype, " | ".join(roof), worst, "%.2f-%.2f" % (min(peer), max(peer)) if peer else "",
                "%.2f" % min(torch) if torch else ""))

if __name__ == "__main__":
    main()
