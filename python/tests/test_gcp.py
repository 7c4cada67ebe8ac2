"""GCP from Python: a planted Poisson count tensor recovered (factor match score against the truth),
the per-epoch losses, the callback, the devices, the factor match score itself, and errors."""
import numpy as np
import pytest

import grain

DEVICES = ["cpu"] + (["cuda"] if "cuda" in grain.info()["backends"] else [])


def planted_counts(dims=(30, 40, 35), rank=3, seed=21):
    """Poisson counts drawn entry by entry from a non-negative rank-3 model with block-like columns."""
    rng = np.random.default_rng(seed)
    factors = []
    for d in dims:
        f = 0.1 * np.ones((d, rank))
        for r in range(rank):
            f[r * d // rank:(r + 1) * d // rank, r] = 1.0
        factors.append(f * (0.5 + rng.random((d, rank))))
    counts = rng.poisson(np.einsum("ir,jr,kr->ijk", *factors))
    idx = np.argwhere(counts > 0)
    truth = grain.KTensor(np.ones(rank), factors)
    return grain.SparseTensor(idx, counts[tuple(idx.T)].astype(np.float64)), truth


@pytest.mark.parametrize("device", DEVICES)
def test_poisson_recovers_planted_counts(device):
    X, truth = planted_counts()
    M = grain.gcp(X, 3, loss="poisson", epochs=15, iters=50, samples=2000, loss_samples=20000, rate=1e-2, seed=23,
                  device=device)
    assert M.rank == 3 and M.shape == X.shape and len(M.losses) >= 1
    assert M.initial_loss > M.losses[-1]
    assert all(b <= a for a, b in zip(M.losses, M.losses[1:]))  # the kept estimate never rises
    assert all((np.asarray(f) >= 0).all() for f in M.factors)
    assert all(np.diff(np.asarray(M.weights)) <= 0)  # components by decreasing weight
    score, pairs = grain.factor_match_score(M, truth)
    assert score >= 0.9, score
    assert sorted(p[0] for p in pairs) == [0, 1, 2]
    assert M.stop_reason in ("epochs", "max_fails")


def test_callback_and_seed():
    X, _ = planted_counts()
    seen = []

    def progress(epoch, loss, seconds):
        seen.append((epoch, loss, seconds))
        return epoch < 2

    M = grain.gcp(X, 3, loss="poisson", epochs=10, iters=20, seed=5, callback=progress, device="cpu")
    assert [s[0] for s in seen] == [1, 2] and M.stop_reason == "callback" and len(M.losses) == 2
    assert M.losses == [s[1] for s in seen]
    a = grain.gcp(X, 3, loss="gaussian", epochs=2, iters=20, seed=5, device="cpu")
    b = grain.gcp(X, 3, loss="gaussian", epochs=2, iters=20, seed=5, device="cpu")
    np.testing.assert_allclose(a.losses, b.losses, rtol=1e-12, atol=0)


def test_factor_match_score():
    rng = np.random.default_rng(3)
    w = np.array([3.0, 2.0, 1.0])
    fs = [rng.random((d, 3)) for d in (5, 6, 7)]
    A = grain.KTensor(w, fs)
    perm = [2, 0, 1]
    B = grain.KTensor(w[perm] * 8.0, [f[:, perm] * 2.0 for f in fs])  # reordered, each column rescaled
    score, pairs = grain.factor_match_score(A, B, weights=False)
    assert score == pytest.approx(1.0, abs=1e-12)
    assert sorted((a, b) for a, b, _ in pairs) == [(0, 1), (1, 2), (2, 0)]
    C = grain.KTensor(w, [f + 0.5 * rng.random(f.shape) for f in fs])
    assert grain.factor_match_score(A, C)[0] < 0.99
    with pytest.raises(ValueError, match="same mode sizes"):
        grain.factor_match_score(A, grain.KTensor(w, [rng.random((d, 3)) for d in (5, 6, 8)]))
    with pytest.raises(TypeError, match="KTensor"):
        grain.factor_match_score(A, fs)


def test_gcp_errors():
    X, _ = planted_counts()
    with pytest.raises(ValueError, match="unknown loss 'poison'"):
        grain.gcp(X, 3, loss="poison")
    with pytest.raises(ValueError, match="the bernoulli loss needs every nonzero to be 1"):
        grain.gcp(X, 3, loss="bernoulli", epochs=1, iters=1, device="cpu")
    with pytest.raises(ValueError, match="rank 0"):
        grain.gcp(X, 0)
    with pytest.raises(ValueError, match="epochs 0"):
        grain.gcp(X, 3, epochs=0, device="cpu")
    with pytest.raises(ValueError, match="unknown device"):
        grain.gcp(X, 3, device="tpu")
    with pytest.raises(TypeError, match="SparseTensor"):
        grain.gcp(np.ones((3, 3)), 2)
