#!/usr/bin/env python3
"""Time torch.einsum on the nine Intrepid contractions, the peer a PyTorch user would pick.

Same kernels, cases (Q1..Q4), cell-count rule and JSON format as `grain bench contract`
(docs/benchmarks.md), so the rows can be merged or plotted beside grain's:

    python3 bench/torch_einsum.py --json torch.json                 # all kernels, cases, dtypes
    python3 bench/torch_einsum.py --kernel FieldFieldScalar --case Q1 --dtype double
    python3 bench/torch_einsum.py --dry-run                         # print the cases, no torch

The copy bandwidth (a device-to-device tensor copy) and the GEMM peak (torch.matmul, TF32 off)
are measured in the same run. Each time is the median (and minimum) of --reps CUDA-event timed
calls after warm-up, on random data; each result is checked against a float64 evaluation of a
sample of cells on the CPU. Rows carry algorithm "torch-einsum"; "selected" is false ("verified"
says whether the check passed).

--layout sets the memory order of the inputs, as grain's layouts do: `right` (the default)
contiguous row-major tensors, cells slowest; `left` the same logical tensors with the cell index
unit-stride and the last index slowest (grain's LayoutLeft, made by permuting a contiguous tensor
of the reversed shape), which is what a PyTorch user holding LayoutLeft data passes; `both` times
each case in both. The output is whatever torch.einsum returns. Rows carry "layout_left" 0 or 1.
Needs only python3 and torch (CUDA build; --device cpu runs on the CPU for a smoke test).
"""
import argparse
import json
import math
import statistics
import sys

KERNELS = [
    # name, family (0 DataData, 1 DataField, 2 FieldField), contracted indices, einsum equation
    ("DataDataScalar", 0, 1, "cp,cp->c"),
    ("DataDataVector", 0, 2, "cpd,cpd->c"),
    ("DataDataTensor", 0, 3, "cpde,cpde->c"),
    ("DataFieldScalar", 1, 1, "cp,cfp->cf"),
    ("DataFieldVector", 1, 2, "cpd,cfpd->cf"),
    ("DataFieldTensor", 1, 3, "cpde,cfpde->cf"),
    ("FieldFieldScalar", 2, 1, "clp,crp->clr"),
    ("FieldFieldVector", 2, 2, "clpd,crpd->clr"),
    ("FieldFieldTensor", 2, 3, "clpde,crpde->clr"),
]
CASES = [("Q1", 8, 8), ("Q2", 27, 27), ("Q3", 64, 64), ("Q4", 125, 216)]  # name, fields, points
ELEM = {"float": 4, "double": 8}


def make_shape(kernel, case, budget_mib, dtype):
    """The same shape rule as grain bench contract: C so that the larger input holds the budget."""
    name, family, nk, eq = kernel
    cname, fields, P = case
    L = fields if family == 2 else 1
    R = fields if family >= 1 else 1
    D1 = 3 if nk >= 2 else 1
    D2 = 3 if nk >= 3 else 1
    K = P * D1 * D2
    left_cell = (L if family == 2 else 1) * K
    right_cell = (R if family >= 1 else 1) * K
    C = max(1, int(budget_mib * 1048576.0 / (max(left_cell, right_cell) * ELEM[dtype])))
    tail = [P] + ([D1] if nk >= 2 else []) + ([D2] if nk >= 3 else [])
    left = [C] + ([L] if family == 2 else []) + tail
    right = [C] + ([R] if family >= 1 else []) + tail
    out = [C] + ([L] if family == 2 else []) + ([R] if family >= 1 else [])
    prod = lambda s: math.prod(s)
    return {
        "kernel": name, "case": cname, "dtype": dtype, "equation": eq,
        "C": C, "L": L, "R": R, "P": P, "D1": D1, "D2": D2, "K": K,
        "left": left, "right": right, "out": out,
        "bytes": float(prod(left) + prod(right) + prod(out)) * ELEM[dtype],
        "flops": 2.0 * C * L * R * K,
        "budget_MiB": budget_mib,
    }


def plan(args):
    kernels = KERNELS if args.kernel == "all" else [k for k in KERNELS if k[0] in args.kernel.split(",")]
    if args.kernel != "all" and len(kernels) != len(args.kernel.split(",")):
        sys.exit("--kernel: unknown kernel in %r (names: all, %s)" % (args.kernel, ", ".join(k[0] for k in KERNELS)))
    cases = CASES if args.case == "all" else [c for c in CASES if c[0] in args.case.split(",")]
    if args.case != "all" and len(cases) != len(args.case.split(",")):
        sys.exit("--case: unknown case in %r (Q1, Q2, Q3, Q4, all)" % args.case)
    if args.dtype not in ("float", "double", "all"):
        sys.exit("--dtype must be float, double or all")
    dtypes = ["float", "double"] if args.dtype == "all" else [args.dtype]
    return [make_shape(k, c, args.budget_mib, d) for k in kernels for c in cases for d in dtypes]


def summarize(ms):
    ms = sorted(ms)
    return statistics.median(ms), ms[0]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernel", default="all", help="all or a comma-separated list of kernel names")
    p.add_argument("--case", default="all", help="all or a comma-separated list of Q1..Q4")
    p.add_argument("--dtype", default="all", help="float, double or all")
    p.add_argument("--budget-mib", type=float, default=512.0, help="bytes of the larger input (MiB)")
    p.add_argument("--reps", type=int, default=20, help="timed repetitions (at least 10)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--json", default=None, help="write the JSON of docs/benchmarks.md here")
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (a smoke test only)")
    p.add_argument("--layout", default="right", help="right (row-major inputs), left (cells unit-stride) or both")
    p.add_argument("--dry-run", action="store_true", help="print the cases and exit (no torch needed)")
    args = p.parse_args(argv)
    if args.reps < 10 and not args.dry_run:
        sys.exit("--reps must be at least 10 (docs/benchmarks.md)")
    if args.budget_mib <= 0:
        sys.exit("--budget-mib must be positive")
    if args.layout not in ("right", "left", "both"):
        sys.exit("--layout must be right, left or both (got %r)" % args.layout)
    layouts = [0, 1] if args.layout == "both" else [1 if args.layout == "left" else 0]
    shapes = plan(args)

    if args.dry_run:
        print("%-18s %-4s %-6s %-18s %10s %5s %5s %5s %6s %12s %12s" % (
            "kernel", "case", "dtype", "einsum", "C", "L", "R", "P", "K", "MB", "GFLOP"))
        for s in shapes:
            print("%-18s %-4s %-6s %-18s %10d %5d %5d %5d %6d %12.1f %12.3f" % (
                s["kernel"], s["case"], s["dtype"], s["equation"], s["C"], s["L"], s["R"], s["P"],
                s["K"], s["bytes"] / 1e6, s["flops"] / 1e9))
        print("%d measurements" % len(shapes))
        return 0

    try:
        import torch
    except ImportError:
        sys.exit("torch_einsum.py needs PyTorch (import torch failed); run it where torch is "
                 "installed (the GPU machine), or use --dry-run to print the cases")
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch.cuda.is_available() is False: no GPU visible to PyTorch (use --device cpu "
                 "for a CPU smoke test)")
    dev = torch.device(args.device)
    gpu = dev.type == "cuda"
    # The float rows and the float GEMM peak without TF32, like grain's and cuBLAS's default.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    tdt = {"float": torch.float32, "double": torch.float64}

    import time

    def timed(fn):
        for _ in range(args.warmup):
            fn()
        ms = []
        if gpu:
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            for _ in range(args.reps):
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                ms.append(start.elapsed_time(stop))
        else:
            for _ in range(args.reps):
                t0 = time.perf_counter()
                fn()
                ms.append((time.perf_counter() - t0) * 1e3)
        return summarize(ms)

    # Ceilings in the same run.
    n_copy = int(max(256.0, min(1024.0, args.budget_mib)) * 1048576 / 8) if gpu else 1 << 23
    src = torch.ones(n_copy, dtype=torch.float64, device=dev)
    dst = torch.empty_like(src)
    copy_ms, _ = timed(lambda: dst.copy_(src))
    copy_GBps = 2.0 * n_copy * 8 / (copy_ms * 1e-3) / 1e9
    del src, dst
    peaks = {}
    n_gemm = 8192 if gpu else 1024
    for d in ("float", "double"):
        a = torch.rand(n_gemm, n_gemm, dtype=tdt[d], device=dev)
        b = torch.rand(n_gemm, n_gemm, dtype=tdt[d], device=dev)
        gemm_ms, _ = timed(lambda: torch.matmul(a, b))
        peaks[d] = 2.0 * n_gemm ** 3 / (gemm_ms * 1e-3) / 1e9
        del a, b
    device_name = torch.cuda.get_device_name(dev) if gpu else "CPU (torch)"
    threads = (torch.cuda.get_device_properties(dev).multi_processor_count * 2048) if gpu else torch.get_num_threads()
    print("torch %s on %s: copy %.1f GB/s, GEMM peak %.0f / %.0f GFLOP/s (float / double)" % (
        torch.__version__, device_name, copy_GBps, peaks["float"], peaks["double"]), flush=True)

    rows = []
    gen = torch.Generator(device=dev)
    gen.manual_seed(7)
    for s, layout_left in [(s, ll) for s in shapes for ll in layouts]:
        dt = tdt[s["dtype"]]

        def rand(shape):
            # +/-[0.5, 1.5): random and non-zero. LayoutLeft: stored in the reversed index order
            # (the cell index unit-stride), seen through a permutation in the logical order.
            stored = list(reversed(shape)) if layout_left else list(shape)
            x = torch.rand(stored, dtype=dt, device=dev, generator=gen) + 0.5
            sign = torch.randint(0, 2, stored, device=dev, generator=gen, dtype=torch.int8)
            x = torch.where(sign == 0, x, -x)
            return x.permute(*reversed(range(len(shape)))) if layout_left else x

        try:
            left = rand(s["left"])
            right = rand(s["right"])
            eq = s["equation"]
            out = torch.einsum(eq, left, right)
            t_med, t_min = timed(lambda: torch.einsum(eq, left, right))
            out = torch.einsum(eq, left, right)
            # A float64 CPU check of a few cells (first, last, a few between).
            C = s["C"]
            cells = sorted({0, C - 1, C // 2, C // 3, (2 * C) // 3})
            idx = torch.tensor(cells, device=dev)
            ref = torch.einsum(eq, left[idx].double().cpu(), right[idx].double().cpu())
            mag = torch.einsum(eq, left[idx].double().abs().cpu(), right[idx].double().abs().cpu())
            got = out[idx].double().cpu()
            eps = torch.finfo(dt).eps
            tol = 2.0 * (s["K"] + 8) * eps
            verified = bool(torch.isfinite(out).all().item()) and bool(((got - ref).abs() <= tol * mag + 1e-30).all().item())
            del left, right, out
        except RuntimeError as e:  # out of memory and the like: report and go on
            print("  %s %s %s %s: failed: %s" % (s["kernel"], s["case"], s["dtype"], "left" if layout_left else "right",
                                                str(e).splitlines()[0]),
                  file=sys.stderr)
            if gpu:
                torch.cuda.empty_cache()
            continue
        sec = t_med * 1e-3
        floor = max(s["bytes"] / (copy_GBps * 1e9), s["flops"] / (peaks[s["dtype"]] * 1e9))
        row = {
            "kernel": s["kernel"], "case": s["case"], "dtype": s["dtype"], "algorithm": "torch-einsum",
            "selected": False, "verified": verified,
            "C": s["C"], "L": s["L"], "R": s["R"], "P": s["P"], "D1": s["D1"], "D2": s["D2"],
            "ms": t_med, "ms_min": t_min, "bytes": s["bytes"], "flops": s["flops"],
            "GBps": s["bytes"] / sec / 1e9, "GFLOPs": s["flops"] / sec / 1e9, "roofline": floor / sec,
            "budget_MiB": s["budget_MiB"], "layout_left": layout_left, "reps": args.reps,
        }
        rows.append(row)
        print("  %-18s %-3s %-6s %-5s torch-einsum %10.4f ms %8.1f GB/s %8.1f GFLOP/s  roofline %.3f%s" % (
            s["kernel"], s["case"], s["dtype"], "left" if layout_left else "right", t_med, row["GBps"], row["GFLOPs"], row["roofline"],
            "" if verified else "  (WRONG RESULT)"), flush=True)

    doc = {"device": device_name, "backend": "cuda" if gpu else "openmp", "threads": threads,
           "copy_GBps": copy_GBps, "peak_GFLOPs": {"float": peaks["float"], "double": peaks["double"]},
           "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("wrote", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
