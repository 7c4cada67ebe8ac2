#!/usr/bin/env python3
"""Plot grain benchmark results (the JSON of docs/benchmarks.md, written by `grain bench ... --json`).

Four modes, all writing PNG files:

  paper    FILES... [--out-dir DIR] [--prefix NAME] [--metric ms|ms_min]
           The figures of Edwards, Sunderland et al. 2011 (Figures 5 and 6): time against problem size,
           log-log, one line per algorithm (portable grain-* solid, hand-written dashed), one
           figure per kernel (HexGradient, GramSchmidt), with a lower panel giving each portable
           version's time divided by the hand-written one of the same back end.

  lines    FILES... --kernel K [--metric ms|ms_min|GBps|GFLOPs|roofline] [--x FIELD] --out PNG
           A metric per algorithm per case. A numeric x (N, C, P, ...) gives lines on log axes;
           a categorical one (case = Q1..Q4, a tensor's name) gives grouped bars.

  contract FILES... [--out-dir DIR] [--prefix NAME] [--metric ms|ms_min|GBps|GFLOPs|roofline]
           Every contraction figure: for `grain bench contract` / torch_einsum.py files, the time of
           each algorithm per case (one PNG per kernel and dtype); for `--sweep` files, the
           speedup over serial across P x budget_MiB of each algorithm and of the best (Figure 3.1).

  heatmap  FILES... --kernel K --x FIELD --y FIELD --out PNG
           [--metric ms] [--algorithm A] [--speedup-over BASELINE [--of A|best]]
           A sweep as a heat map (the contraction study's speedup maps): the metric of one
           algorithm, or the speedup (baseline time / time) of an algorithm, or of the best one
           per cell, over a baseline such as "serial".

Common options: --where FIELD=VALUE (repeatable) keeps matching rows; --dtype float|double.
A field is looked up in the row first, then in the file's top level (device, backend, threads).
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict


def load_rows(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        top = {k: v for k, v in doc.items() if k != "rows"}
        for r in doc.get("rows", []):
            merged = dict(top)
            merged.update(r)
            merged["_file"] = os.path.basename(path)
            rows.append(merged)
    return rows


def as_number(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def select(rows, kernel=None, dtype=None, where=()):
    out = []
    for r in rows:
        if kernel and r.get("kernel") != kernel:
            continue
        if dtype and r.get("dtype") != dtype:
            continue
        ok = True
        for cond in where:
            key, _, val = cond.partition("=")
            got = r.get(key)
            if str(got) != val and not (as_number(got) is not None and as_number(val) is not None
                                        and as_number(got) == as_number(val)):
                ok = False
                break
        if ok:
            out.append(r)
    return out


def series_name(r, multi_device):
    name = r.get("algorithm", "?")
    if multi_device:
        name += " (" + str(r.get("device", "?")) + ")"
    return name


def is_portable(algorithm):
    return algorithm.startswith("grain")


def backend_of(algorithm):
    # grain-openmp -> openmp, grain-cuda-async -> cuda, hand-cuda -> cuda, cublas -> cuda
    if algorithm.startswith("cublas"):
        return "cuda"
    for b in ("serial", "openmp", "cuda"):
        if b in algorithm.split("-"):
            return b
    return algorithm


def x_value(r, field):
    v = r.get(field)
    if v is None and field == "N":
        v = r.get("case")
    return v


def need_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.exit("plot.py needs matplotlib (Debian: apt-get install python3-matplotlib)")


# ---- lines: a metric per algorithm per case -----------------------------------------------------
def draw_lines(ax, rows, metric, xfield, multi_device, style=None):
    groups = defaultdict(list)
    for r in rows:
        groups[series_name(r, multi_device)].append(r)
    numeric = all(as_number(x_value(r, xfield)) is not None for r in rows)
    if numeric:
        for name in sorted(groups):
            pts = sorted((as_number(x_value(r, xfield)), as_number(r.get(metric))) for r in groups[name])
            pts = [(x, y) for x, y in pts if y is not None]
            if not pts:
                continue
            kw = style(name) if style else {}
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                    label=name, **kw)
        ax.set_xscale("log")
        if metric in ("ms", "ms_min"):
            ax.set_yscale("log")
    else:
        cases = []
        for r in rows:
            c = str(x_value(r, xfield))
            if c not in cases:
                cases.append(c)
        names = sorted(groups)
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            vals = {str(x_value(r, xfield)): as_number(r.get(metric)) for r in groups[name]}
            xs = [j + i * width for j in range(len(cases))]
            ys = [vals.get(c) or 0.0 for c in cases]
            ax.bar(xs, ys, width=width, label=name)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cases))])
        ax.set_xticklabels(cases)
        if metric in ("ms", "ms_min"):
            ax.set_yscale("log")
    ax.set_xlabel(xfield)
    ax.set_ylabel(metric_label(metric))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def metric_label(metric):
    return {"ms": "time per call (ms, median)", "ms_min": "time per call (ms, minimum)",
            "GBps": "GB/s", "GFLOPs": "GFLOP/s", "roofline": "fraction of the copy/peak roofline"}.get(
                metric, metric)


def cmd_lines(args):
    plt = need_matplotlib()
    rows = select(load_rows(args.files), args.kernel, args.dtype, args.where)
    if not rows:
        sys.exit("no rows match kernel %r" % args.kernel)
    multi = len({r.get("device") for r in rows}) > 1
    fig, ax = plt.subplots(figsize=(7, 4.5))
    draw_lines(ax, rows, args.metric, args.x, multi)
    ax.set_title(args.title or args.kernel)
    fig.tight_layout()
    fig.savefig(args.out, dpi=130)
    print("wrote", args.out)


# ---- paper: Figures 5 and 6 ---------------------------------------------------------------------
PAPER_TITLES = {
    "HexGradient": "Hexahedral basis gradients (Edwards et al., Figure 5)",
    "GramSchmidt": "Modified Gram-Schmidt, N x 32 (Edwards et al., Figure 6)",
}


def paper_style(name):
    alg = name.split(" (")[0]
    if is_portable(alg):
        return {"linestyle": "-", "linewidth": 2}
    return {"linestyle": "--", "linewidth": 1.3}


def ratio_series(rows, multi_device, metric="ms"):
    """grain-<b> time / hand-<b> time per N (cuBLAS too, for cuda)."""
    by_key = {}
    for r in rows:
        by_key[(r.get("device") if multi_device else None, r["algorithm"], r["case"])] = r
    out = defaultdict(list)
    for (dev, alg, case), g in by_key.items():
        if not is_portable(alg):
            continue
        b = backend_of(alg)
        for other in ("hand-" + b,) + (("cublas",) if b == "cuda" else ()):
            h = by_key.get((dev, other, case))
            if h and as_number(h.get(metric)) and as_number(g.get(metric)):
                label = "%s / %s" % (alg, other) + (" (%s)" % dev if multi_device else "")
                out[label].append((as_number(case), g[metric] / h[metric]))
    return out


def cmd_paper(args):
    plt = need_matplotlib()
    rows = load_rows(args.files)
    os.makedirs(args.out_dir, exist_ok=True)
    wrote = 0
    for kernel in ("HexGradient", "GramSchmidt"):
        rk = select(rows, kernel, args.dtype, args.where)
        if not rk:
            continue
        multi = len({r.get("device") for r in rk}) > 1
        fig, (ax, axr) = plt.subplots(2, 1, figsize=(7, 7), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
        draw_lines(ax, rk, args.metric, "N", multi, style=paper_style)
        ax.set_xlabel("")
        devices = sorted({str(r.get("device")) for r in rk})
        ax.set_title(PAPER_TITLES[kernel] + "\n" + "; ".join(devices), fontsize=10)
        for label, pts in sorted(ratio_series(rk, multi, args.metric).items()):
            pts.sort()
            axr.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=label)
        axr.axhline(1.0, color="black", linewidth=0.8)
        axr.axhspan(0.95, 1.05, color="green", alpha=0.12, label="within 5%")
        axr.set_xscale("log")
        axr.set_xlabel("elements" if kernel == "HexGradient" else "rows N")
        axr.set_ylabel("portable / hand time")
        axr.grid(True, which="both", alpha=0.3)
        axr.legend(fontsize=7)
        fig.tight_layout()
        out = os.path.join(args.out_dir, "%s_%s.png" % (args.prefix, kernel.lower()))
        fig.savefig(out, dpi=130)
        plt.close(fig)
        print("wrote", out)
        wrote += 1
    if not wrote:
        sys.exit("no HexGradient or GramSchmidt rows in " + ", ".join(args.files))


# ---- heatmap: sweeps ------------------------------------------------------------------------------
def cmd_heatmap(args):
    plt = need_matplotlib()
    rows = select(load_rows(args.files), args.kernel, args.dtype, args.where)
    if not rows:
        sys.exit("no rows match kernel %r" % args.kernel)
    cells = defaultdict(list)
    for r in rows:
        cells[(str(x_value(r, args.x)), str(x_value(r, args.y)))].append(r)

    def value(cell_rows):
        if args.speedup_over:
            base = [r for r in cell_rows if r["algorithm"] == args.speedup_over]
            if not base:
                return None
            others = [r for r in cell_rows if r["algorithm"] != args.speedup_over]
            if args.of != "best":
                others = [r for r in others if r["algorithm"] == args.of]
            times = [as_number(r.get("ms")) for r in others if as_number(r.get("ms"))]
            return as_number(base[0]["ms"]) / min(times) if times else None
        pick = [r for r in cell_rows if not args.algorithm or r["algorithm"] == args.algorithm]
        if not pick:
            return None
        vals = [as_number(r.get(args.metric)) for r in pick if as_number(r.get(args.metric)) is not None]
        if not vals:
            return None
        return min(vals) if args.metric in ("ms", "ms_min") else max(vals)

    def order(vals):
        nums = [as_number(v) for v in vals]
        if all(n is not None for n in nums):
            return [v for _, v in sorted(zip(nums, vals))]
        return sorted(vals)

    xs = order({k[0] for k in cells})
    ys = order({k[1] for k in cells})
    grid = [[value(cells.get((x, y), [])) for x in xs] for y in ys]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(xs), 1.2 + 0.6 * len(ys)))
    import numpy as np
    data = np.array([[v if v is not None else np.nan for v in row] for row in grid], dtype=float)
    im = ax.imshow(data, origin="lower", aspect="auto", cmap="viridis")
    for j, row in enumerate(grid):
        for i, v in enumerate(row):
            if v is not None:
                ax.text(i, j, "%.3g" % v, ha="center", va="center", fontsize=7, color="white")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs, rotation=45)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys)
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    what = ("speedup of %s over %s" % (args.of, args.speedup_over)) if args.speedup_over else \
        "%s%s" % (args.metric, (" of " + args.algorithm) if args.algorithm else "")
    ax.set_title(args.title or "%s: %s" % (args.kernel, what), fontsize=10)
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(args.out, dpi=130)
    print("wrote", args.out)


# ---- contract: every figure of `grain bench contract`, torch_einsum.py and --sweep results ------
def is_sweep_file(path):
    return any(str(r.get("case", "")).startswith("P") for r in load_rows([path]))


def cmd_contract(args):
    plt = need_matplotlib()
    os.makedirs(args.out_dir, exist_ok=True)
    case_files = [f for f in args.files if not is_sweep_file(f)]
    sweep_files = [f for f in args.files if is_sweep_file(f)]
    wrote = 0
    rows = select(load_rows(case_files), None, args.dtype, args.where) if case_files else []
    for kernel in sorted({r["kernel"] for r in rows}):
        for dtype in sorted({r["dtype"] for r in rows if r["kernel"] == kernel}):
            out = os.path.join(args.out_dir, "%s_%s_%s_time.png" % (args.prefix, kernel, dtype))
            cmd_lines(argparse.Namespace(files=case_files, kernel=kernel, dtype=dtype, where=args.where,
                                         metric=args.metric, x="case", out=out,
                                         title="%s, %s: time per algorithm per case" % (kernel, dtype)))
            plt.close("all")
            wrote += 1
    rows = select(load_rows(sweep_files), None, args.dtype, args.where) if sweep_files else []
    for kernel in sorted({r["kernel"] for r in rows}):
        for dtype in sorted({r["dtype"] for r in rows if r["kernel"] == kernel}):
            algs = sorted({r["algorithm"] for r in rows
                           if r["kernel"] == kernel and r["dtype"] == dtype and r["algorithm"] != "serial"})
            for alg in algs + ["best"]:
                out = os.path.join(args.out_dir, "%s_%s_%s_speedup_%s.png" % (args.prefix, kernel, dtype, alg))
                cmd_heatmap(argparse.Namespace(files=sweep_files, kernel=kernel, dtype=dtype, where=args.where,
                                               x="P", y="budget_MiB", metric="ms", algorithm=None,
                                               speedup_over="serial", of=alg, out=out, title=None))
                plt.close("all")
                wrote += 1
    if not wrote:
        sys.exit("no contraction rows in " + ", ".join(args.files))


# ---- gcp: estimated loss against time, one line per run (grain gcp --json files) ----------------
def cmd_gcp(args):
    plt = need_matplotlib()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for path in args.files:
        with open(path) as f:
            run = json.load(f)
        t, y = [0.0], [1.0]
        for e in run["epochs"]:
            t.append(t[-1] + e["seconds"])
            y.append(e["loss_estimate"] / run["initial_loss_estimate"])
        ax.plot(t, y, marker=".", label=f"{run['loss']} (R = {run['rank']}, {run['backend']})")
    ax.set_xlabel("seconds")
    ax.set_ylabel("estimated loss / the start's")
    ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend()
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)

    def common(sp):
        sp.add_argument("files", nargs="+", help="JSON files from grain bench ... --json")
        sp.add_argument("--dtype", default=None)
        sp.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE")
        sp.add_argument("--title", default=None)

    sp = sub.add_parser("paper", help="the 2011 paper's two figures")
    common(sp)
    sp.add_argument("--out-dir", default=".")
    sp.add_argument("--prefix", default="paper")
    sp.add_argument("--metric", default="ms", choices=["ms", "ms_min"],
                    help="median (the contract) or minimum time, for noisy shared machines")
    sp.set_defaults(fn=cmd_paper)

    sp = sub.add_parser("lines", help="a metric per algorithm per case")
    common(sp)
    sp.add_argument("--kernel", required=True)
    sp.add_argument("--metric", default="ms")
    sp.add_argument("--x", default="case")
    sp.add_argument("--out", required=True)
    sp.set_defaults(fn=cmd_lines)

    sp = sub.add_parser("heatmap", help="a sweep as a heat map")
    common(sp)
    sp.add_argument("--kernel", required=True)
    sp.add_argument("--x", required=True)
    sp.add_argument("--y", required=True)
    sp.add_argument("--metric", default="ms")
    sp.add_argument("--algorithm", default=None)
    sp.add_argument("--speedup-over", default=None, metavar="BASELINE")
    sp.add_argument("--of", default="best", help="algorithm whose speedup is shown, or best")
    sp.add_argument("--out", required=True)
    sp.set_defaults(fn=cmd_heatmap)

    sp = sub.add_parser("contract", help="all contraction figures: time per algorithm per case "
                        "(bench contract, torch_einsum.py files) and speedup heat maps (--sweep files)")
    common(sp)
    sp.add_argument("--out-dir", default=".")
    sp.add_argument("--prefix", default="contract")
    sp.add_argument("--metric", default="ms", choices=["ms", "ms_min", "GBps", "GFLOPs", "roofline"])
    sp.set_defaults(fn=cmd_contract)

    sp = sub.add_parser("gcp", help="GCP runs' estimated loss (relative to the start's) against time")
    sp.add_argument("files", nargs="+", help="JSON files from grain gcp --json")
    sp.add_argument("--title", default=None)
    sp.add_argument("--out", required=True)
    sp.set_defaults(fn=cmd_gcp)

    args = p.parse_args(argv)
    args.fn(args)


if __name__ == "__main__":
    main()
