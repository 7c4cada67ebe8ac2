"""grain from Python: the nine finite-element contractions on NumPy arrays, PyTorch tensors and
CuPy arrays (host or GPU) without a copy, plans that choose their algorithm once, sparse tensors,
and CP-ALS (docs/python.md).

    import numpy as np, grain
    out = grain.contract_field_field_scalar(left, right)     # left (C,L,P), right (C,R,P)
    plan = grain.plan_field_field_scalar(left, right, tuning="measure")
    out = plan(left, right)                                  # the measured winner, every call
    X = grain.SparseTensor.read("t.tns")
    M = grain.cp_als(X, rank=16)                            # a KTensor
"""

import secrets

import numpy as np

from ._grain import (
    Plan,
    SparseTensor,
    __version__,
    clear_plan_cache,
    contract_data_data_scalar,
    contract_data_data_tensor,
    contract_data_data_vector,
    contract_data_field_scalar,
    contract_data_field_tensor,
    contract_data_field_vector,
    contract_field_field_scalar,
    contract_field_field_tensor,
    contract_field_field_vector,
    explain,
    info,
    plan_data_data_scalar,
    plan_data_data_tensor,
    plan_data_data_vector,
    plan_data_field_scalar,
    plan_data_field_tensor,
    plan_data_field_vector,
    plan_field_field_scalar,
    plan_field_field_tensor,
    plan_field_field_vector,
)
from . import _grain

__all__ = [
    "KTensor", "SparseTensor", "__version__", "cp_als", "factor_match_score", "gcp", "info",
    "contract_data_data_scalar", "contract_data_data_vector", "contract_data_data_tensor",
    "contract_data_field_scalar", "contract_data_field_vector", "contract_data_field_tensor",
    "contract_field_field_scalar", "contract_field_field_vector", "contract_field_field_tensor",
    "Plan", "clear_plan_cache", "explain",
    "plan_data_data_scalar", "plan_data_data_vector", "plan_data_data_tensor",
    "plan_data_field_scalar", "plan_data_field_vector", "plan_data_field_tensor",
    "plan_field_field_scalar", "plan_field_field_vector", "plan_field_field_tensor",
]


def _numpy(a):
    """a as a NumPy array: PyTorch tensors and CuPy arrays are copied to the host by their library."""
    module = type(a).__module__.split(".")[0]
    if module == "torch":
        return a.detach().cpu().numpy()
    if module == "cupy":
        return a.get()
    return np.asarray(a)


def _as_library(a, library, device):
    """The NumPy array a as an array of `library` (numpy, torch, cupy); torch's on the GPU when the
    run was on one."""
    if library == "torch":
        import torch
        t = torch.from_numpy(a)
        return t.to("cuda") if device == "cuda" else t
    if library == "cupy":
        import cupy
        return cupy.asarray(a)
    return a


class KTensor:
    """A CP model: weights (R,) and one factor matrix (I_m, R) per mode, arrays of one library
    (NumPy, PyTorch or CuPy), with the history of the CP-ALS run that made it (fit and seconds per
    iteration, why it stopped, the back end it ran on)."""

    def __init__(self, weights, factors, fits=(), seconds=(), mttkrp_seconds=(), stop_reason=None,
                 algorithms=(), seed=None, setup_seconds=0.0, backend=None, losses=()):
        self.weights = weights
        self.factors = list(factors)
        self.fits = list(fits)
        self.seconds = list(seconds)
        self.mttkrp_seconds = list(mttkrp_seconds)
        self.stop_reason = stop_reason
        self.algorithms = list(algorithms)
        self.seed = seed
        self.setup_seconds = setup_seconds
        self.backend = backend
        self.losses = list(losses)  # GCP: the estimated loss after each epoch

    @property
    def rank(self):
        return self.weights.shape[0]

    @property
    def shape(self):
        return tuple(f.shape[0] for f in self.factors)

    @property
    def ndim(self):
        return len(self.factors)

    @property
    def fit(self):
        """The fit 1 - |X - M| / |X| after the last iteration (None for a model not from cp_als)."""
        return self.fits[-1] if self.fits else None

    @property
    def iterations(self):
        return len(self.fits)

    def norm(self):
        """The Frobenius norm, from the Gram matrices: sqrt(w^T (G_1 * ... * G_N) w)."""
        h = np.ones((self.rank, self.rank))
        for f in self.factors:
            f = _numpy(f).astype(np.float64)
            h *= f.T @ f
        w = _numpy(self.weights).astype(np.float64)
        return float(np.sqrt(max(w @ h @ w, 0.0)))

    def full(self, max_elements=10**7):
        """The dense tensor sum_r w_r a_1r o ... o a_Nr as a NumPy array, for small shapes (at most
        max_elements)."""
        n = int(np.prod(self.shape, dtype=np.int64))
        if n > max_elements:
            raise ValueError(f"KTensor.full: {n} elements (shape {self.shape}) exceed max_elements="
                             f"{max_elements}; raise it if the memory is there")
        factors = [_numpy(f) for f in self.factors]
        out = factors[0] * _numpy(self.weights)
        for f in factors[1:]:
            out = (out[..., None, :] * f).reshape(out.shape[:-1] + f.shape)
        return out.sum(axis=-1)

    def __repr__(self):
        fit = f", fit={self.fit:.6f}, iterations={self.iterations}" if self.fits else ""
        if self.losses:
            fit = f", loss={self.losses[-1]:.6g}, epochs={len(self.losses)}"
        return f"grain.KTensor(shape={self.shape}, rank={self.rank}{fit})"


def cp_als(X, rank, maxiters=50, tol=1e-4, seed=None, init="random", mttkrp="auto", device="auto",
           dtype=None, callback=None):
    """CP decomposition of the SparseTensor X at the given rank by alternating least squares.

    init: "random" (factor entries uniform in [0, 1) from `seed`; None draws one, kept in the
    result's .seed) or a KTensor to start from. mttkrp: auto, atomic, team, perm, tiled or
    privatized. device: "auto" (the GPU when there is one), "cpu", "cuda" (or a back end's name,
    "openmp", "serial"); the tensor is copied there once. dtype: float32 or float64 (default: X's).
    callback(iteration, fit, seconds) runs after each iteration; returning False stops the run.
    Ctrl-C stops the run after the current iteration and returns the factors so far
    (stop_reason "interrupted"). Returns a KTensor, normalized, components by decreasing weight,
    whose arrays are of X.array_library (torch tensors on the GPU after a GPU run).
    """
    if not isinstance(X, SparseTensor):
        raise TypeError(f"grain.cp_als: X is a {type(X).__name__}; give a grain.SparseTensor")
    if seed is None:
        seed = secrets.randbits(63)
    weights = factors = None
    if isinstance(init, KTensor):
        weights, factors = _numpy(init.weights), [_numpy(f) for f in init.factors]
    elif not (isinstance(init, str) and init == "random"):
        raise ValueError(f"grain.cp_als: init={init!r}; give 'random' or a KTensor")
    r = _grain._cp_als(X, int(rank), int(maxiters), float(tol), int(seed), weights, factors, str(mttkrp),
                       str(device), dtype, callback)
    lib, dev = X.array_library, r["backend"]
    return KTensor(_as_library(r["weights"], lib, dev), [_as_library(f, lib, dev) for f in r["factors"]],
                   r["fits"], r["seconds"], r["mttkrp_seconds"], r["stop_reason"], r["algorithms"], seed,
                   r["setup_seconds"], r["backend"])


def gcp(X, rank, loss="gaussian", epochs=50, iters=1000, samples=None, loss_samples=None, rate=1e-3,
        max_fails=10, seed=None, device="auto", dtype=None, callback=None):
    """Generalized CP of the SparseTensor X by stochastic gradients (GCP-SGD, docs/sparse-cp.md):
    the CP model minimizing the sum over every entry, zeros included, of a loss suited to the data.

    loss: gaussian, poisson (counts; non-negative factors), poisson-log, bernoulli (0/1 data;
    non-negative factors, the odds), bernoulli-logit, gamma or rayleigh (positive data).
    epochs, iters (steps an epoch), samples (nonzeros and as many uniform indices a step; None:
    max(1000, nnz / 1000)), loss_samples (the fixed set estimating the loss after each epoch;
    None: max(10^5, nnz / 10)), rate (Adam's step size), max_fails (epochs that raised the loss
    before the run stops), seed (the random start and the samples), device and dtype as cp_als.
    callback(epoch, loss, seconds) runs after each epoch; returning False stops the run; Ctrl-C
    stops it with the model so far. Returns a KTensor (normalized, components by decreasing
    weight) with .losses (the estimate after each epoch), .seconds, .stop_reason ("epochs",
    "max_fails", "callback" or "interrupted") and .initial_loss.
    """
    if not isinstance(X, SparseTensor):
        raise TypeError(f"grain.gcp: X is a {type(X).__name__}; give a grain.SparseTensor")
    if seed is None:
        seed = secrets.randbits(62)
    r = _grain._gcp(X, int(rank), str(loss), int(epochs), int(iters), int(samples or 0), int(loss_samples or 0),
                    float(rate), int(max_fails), int(seed), str(device), dtype, callback)
    lib, dev = X.array_library, r["backend"]
    M = KTensor(_as_library(r["weights"], lib, dev), [_as_library(f, lib, dev) for f in r["factors"]],
                seconds=r["seconds"], stop_reason=r["stop_reason"], seed=seed, backend=r["backend"],
                losses=r["losses"])
    M.initial_loss = r["initial_loss"]
    return M


def factor_match_score(A, B, weights=True):
    """The factor match score of two KTensors of the same shape (the Tensor Toolbox's score): 1 when
    their components agree up to order and scaling, 0 when none match. weights=False compares the
    factors alone. Returns (score, pairs), pairs as (component of A, component of B, its score)."""
    for name, K in (("A", A), ("B", B)):
        if not isinstance(K, KTensor):
            raise TypeError(f"grain.factor_match_score: {name} is a {type(K).__name__}; give a grain.KTensor")
    return _grain._factor_match_score(_numpy(A.weights), [_numpy(f) for f in A.factors], _numpy(B.weights),
                                      [_numpy(f) for f in B.factors], bool(weights))
