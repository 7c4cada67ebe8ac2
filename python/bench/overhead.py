"""The time of one small contraction called from Python, beside grain_python_overhead's C++ call.

    PYTHONPATH=build/host/python python3 python/bench/overhead.py [host|cuda] [C L R P]

prints the median over batches of microseconds per call of grain.contract_field_field_scalar on
float64 C-contiguous arrays, into a given out and into a new array: NumPy arrays on the host,
PyTorch CUDA tensors on the GPU (a batch's calls queued, then one synchronization, as the C++
baseline does).
"""
import sys
import timeit

import numpy as np

import grain

where = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in ("host", "cuda") else "host"
sizes = [a for a in sys.argv[1:] if a not in ("host", "cuda")]
C, L, R, P = (int(x) for x in sizes[:4]) if len(sizes) >= 4 else (8, 4, 4, 8)
if where == "cuda":
    import torch
    left = torch.full((C, L, P), 0.5, dtype=torch.float64, device="cuda")
    right = torch.full((C, R, P), 0.25, dtype=torch.float64, device="cuda")
    out = torch.empty((C, L, R), dtype=torch.float64, device="cuda")
    sync = torch.cuda.synchronize
else:
    rng = np.random.default_rng(1)
    left, right = rng.random((C, L, P)), rng.random((C, R, P))
    out = np.empty((C, L, R))
    sync = lambda: None  # noqa: E731
for label, call in [("out given", lambda: grain.contract_field_field_scalar(left, right, out=out)),
                    ("new array", lambda: grain.contract_field_field_scalar(left, right))]:
    call()
    calls = 2000

    def batch():
        for _ in range(calls):
            call()
        sync()
    per_call = sorted(t / calls * 1e9 for t in timeit.repeat(batch, number=1, repeat=15))
    print(f"python {where} C={C} L={L} R={R} P={P} ({label}): {per_call[len(per_call) // 2]:.0f} ns per call "
          f"(median of {len(per_call)} batches)")
