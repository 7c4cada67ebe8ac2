"""CP-ALS written the natural way in PyTorch, on the GPU, beside grain.cp_als on the same tensor:
the baseline a Python user would write without grain.

    python3 python/bench/torch_cp_als.py FILE [RANK [ITERS]]

Each mode's MTTKRP gathers the other modes' factor rows of every nonzero, multiplies them with the
values and sums them into the rows with index_add_; the R x R system is solved with
torch.linalg.solve; the fit comes from the Gram matrices and the inner product. Both start from
uniform [0, 1) factors (not the same draws) and run ITERS iterations; prints the median seconds an
iteration of each, their fits and the ratio.
"""
import statistics
import sys
import time

import numpy as np
import torch

import grain

path = sys.argv[1]
rank = int(sys.argv[2]) if len(sys.argv) > 2 else 16
iters = int(sys.argv[3]) if len(sys.argv) > 3 else 10
X = grain.SparseTensor.read(path)
M = grain.cp_als(X, rank, maxiters=iters, tol=0, seed=1, device="cuda")
dev = "cuda"
ind = torch.from_numpy(X.indices.astype(np.int64)).to(dev)
val = torch.from_numpy(X.values.copy()).to(dev)
N = X.ndim
normX2 = float((val * val).sum())
torch.manual_seed(1)
A = [torch.rand((d, rank), dtype=torch.float64, device=dev) for d in X.shape]
lam = torch.ones(rank, dtype=torch.float64, device=dev)


def mttkrp(n):
    prod = val[:, None].expand(-1, rank).clone()
    for m in range(N):
        if m != n:
            prod *= A[m][ind[:, m]]
    out = torch.zeros_like(A[n])
    out.index_add_(0, ind[:, n], prod)
    return out


times, fits = [], []
for it in range(iters):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for n in range(N):
        U = mttkrp(n)
        V = torch.ones((rank, rank), dtype=torch.float64, device=dev)
        for m in range(N):
            if m != n:
                V *= A[m].T @ A[m]
        An = torch.linalg.solve(V, U.T).T
        lam = An.norm(dim=0) if it == 0 else torch.clamp(An.abs().max(dim=0).values, min=1.0)
        A[n] = An / lam
    G = torch.ones((rank, rank), dtype=torch.float64, device=dev)
    for m in range(N):
        G *= A[m].T @ A[m]
    normM2 = float(lam @ G @ lam)
    inner = float((U * A[N - 1]).sum(dim=0) @ lam)
    fit = 1 - np.sqrt(max(normX2 + normM2 - 2 * inner, 0)) / np.sqrt(normX2)
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
    fits.append(fit)
t_torch, t_grain = statistics.median(times), statistics.median(M.seconds)
print(f"torch CP-ALS {path} R={rank}: {t_torch * 1e3:.1f} ms an iteration (fit {fits[-1]:.6f}); grain.cp_als "
      f"{t_grain * 1e3:.2f} ms (fit {M.fit:.6f}); grain is {t_torch / t_grain:.1f}x faster")
