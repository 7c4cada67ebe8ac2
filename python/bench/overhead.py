"""The time of one small contraction called from Python, beside grain_python_overhead's C++ call.

    PYTHONPATH=build/py-host/python python3 python/bench/overhead.py [C L R P]

prints the median over batches of microseconds per call of grain.contract_field_field_scalar on
float64 C-contiguous arrays, into a given out and into a new array.
"""
import sys
import timeit

import numpy as np

import grain

C, L, R, P = (int(x) for x in sys.argv[1:5]) if len(sys.argv) > 4 else (8, 4, 4, 8)
rng = np.random.default_rng(1)
left, right = rng.random((C, L, P)), rng.random((C, R, P))
out = np.empty((C, L, R))
for label, stmt in [("out given", lambda: grain.contract_field_field_scalar(left, right, out=out)),
                    ("new array", lambda: grain.contract_field_field_scalar(left, right))]:
    stmt()
    calls = 2000
    per_call = sorted(t / calls * 1e9 for t in timeit.repeat(stmt, number=calls, repeat=15))
    print(f"python C={C} L={L} R={R} P={P} ({label}): {per_call[len(per_call) // 2]:.0f} ns per call "
          f"(median of {len(per_call)} batches)")
