"""SparseTensor from arrays and files, and CP-ALS: a planted low-rank tensor, the callback, Ctrl-C."""
import os
import signal
import subprocess

import numpy as np
import pytest

import grain


def planted(dims=(11, 13, 15), rank=3, seed=0):
    """Every entry of an exact rank-`rank` tensor as a sparse tensor, and the dense tensor."""
    rng = np.random.default_rng(seed)
    factors = [rng.random((d, rank)) + 0.1 for d in dims]
    full = np.einsum("ir,jr,kr->ijk", *factors)
    idx = np.argwhere(np.ones(dims, dtype=bool))
    return grain.SparseTensor(idx, full[tuple(idx.T)]), full


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cp_als_recovers_a_planted_tensor(dtype):
    X, full = planted()
    M = grain.cp_als(X, 3, maxiters=100, tol=1e-7, seed=1, dtype=dtype)
    assert M.fit > 0.99, M.fits
    assert M.weights.dtype == dtype and [f.shape for f in M.factors] == [(11, 3), (13, 3), (15, 3)]
    assert len(M.fits) == len(M.seconds) == M.iterations and all(s > 0 for s in M.seconds)
    assert M.stop_reason in ("converged", "maxiters") and len(M.algorithms) == 3
    assert np.all(np.diff(M.weights) <= 0)  # components by decreasing weight
    np.testing.assert_allclose(M.full(), full, rtol=0.05, atol=0.05 * full.max())
    assert M.norm() == pytest.approx(np.linalg.norm(full), rel=0.02)


def test_seed_repeats_and_init_continues():
    X, _ = planted()
    a = grain.cp_als(X, 2, maxiters=5, tol=0, seed=7)
    b = grain.cp_als(X, 2, maxiters=5, tol=0, seed=7)
    # the same path; to rounding only on a GPU, whose atomic sums differ in order between runs
    assert a.seed == 7
    np.testing.assert_allclose(a.fits, b.fits, rtol=1e-12, atol=0)
    c = grain.cp_als(X, 2, maxiters=3, tol=0, init=a)
    assert c.fits[0] >= a.fits[-1] - 1e-6
    assert grain.cp_als(X, 2, maxiters=1).seed is not None


def test_callback_stops_the_run():
    X, _ = planted()
    seen = []

    def callback(iteration, fit, seconds):
        seen.append((iteration, fit, seconds))
        return iteration < 3

    M = grain.cp_als(X, 3, maxiters=50, tol=0, seed=1, callback=callback)
    assert [s[0] for s in seen] == [1, 2, 3] and M.iterations == 3 and M.stop_reason == "callback"
    assert [s[1] for s in seen] == M.fits and all(isinstance(s[2], float) for s in seen)
    # None (no return value) continues
    assert grain.cp_als(X, 3, maxiters=4, tol=0, callback=lambda *a: None).iterations == 4


def test_callback_exception_is_raised():
    X, _ = planted()

    def callback(iteration, fit, seconds):
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        grain.cp_als(X, 3, callback=callback)


def test_keyboard_interrupt_in_callback_returns_the_factors():
    X, _ = planted()

    def callback(iteration, fit, seconds):
        if iteration == 2:
            raise KeyboardInterrupt

    M = grain.cp_als(X, 3, maxiters=50, tol=0, seed=1, callback=callback)
    assert M.stop_reason == "interrupted" and M.iterations == 2 and np.isfinite(M.factors[0]).all()


def test_ctrl_c_stops_cleanly():
    # SIGINT arrives while grain runs without the GIL; the run stops after that iteration. Another
    # process sends it, as a terminal would, and the run is long enough to be interrupted yet
    # bounded: a lost signal fails the test, never hangs it. Python's KeyboardInterrupt handler is
    # set for the test: a shell starts background commands with SIGINT ignored, which Python keeps.
    X, _ = planted((40, 50, 60), rank=4)
    first = grain.cp_als(X, 4, maxiters=5, tol=0, seed=1).seconds
    maxiters = max(100, int(30 / (sum(first) / len(first))))
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    kill = subprocess.Popen(["sh", "-c", f"sleep 0.2; kill -INT {os.getpid()}"])
    try:
        M = grain.cp_als(X, 4, maxiters=maxiters, tol=0, seed=1)
    finally:
        kill.wait()
        signal.signal(signal.SIGINT, old)
    assert M.stop_reason == "interrupted" and 1 <= M.iterations < maxiters, (M.stop_reason, M.iterations, maxiters)
    assert all(np.isfinite(f).all() for f in M.factors)


def test_cp_als_errors():
    X, _ = planted()
    with pytest.raises(ValueError, match="rank 0"):
        grain.cp_als(X, 0)
    with pytest.raises(ValueError, match="unknown MTTKRP algorithm 'fast'"):
        grain.cp_als(X, 2, mttkrp="fast")
    if "cuda" not in grain.info()["backends"]:
        with pytest.raises(ValueError, match="device 'cuda'"):
            grain.cp_als(X, 2, device="cuda")
    with pytest.raises(ValueError, match="unknown device"):
        grain.cp_als(X, 2, device="tpu")
    with pytest.raises(TypeError, match="float32 or float64"):
        grain.cp_als(X, 2, dtype=np.int32)
    with pytest.raises(TypeError, match="SparseTensor"):
        grain.cp_als(np.ones((3, 3)), 2)
    with pytest.raises(ValueError, match="maxiters 0"):
        grain.cp_als(X, 2, maxiters=0)


def test_mttkrp_algorithms_agree():
    X, _ = planted()
    fits = [grain.cp_als(X, 2, maxiters=3, tol=0, seed=3, mttkrp=a).fits for a in ("atomic", "perm", "privatized")]
    np.testing.assert_allclose(fits[0], fits[1], rtol=1e-9)
    np.testing.assert_allclose(fits[0], fits[2], rtol=1e-9)


# ---- SparseTensor --------------------------------------------------------------------------------

def small():
    idx = np.array([[0, 1, 2], [3, 0, 1], [2, 2, 0], [3, 4, 2]])
    vals = np.array([1.5, -2.0, 0.25, 1e-300])
    return idx, vals


def test_from_arrays():
    idx, vals = small()
    X = grain.SparseTensor(idx, vals)
    assert X.shape == (4, 5, 3) and X.nnz == 4 and X.ndim == 3 and X.dtype == np.float64
    assert X.indices.dtype == np.uint32 and np.array_equal(X.indices, idx)
    assert np.array_equal(X.values, vals) and not X.values.flags.writeable
    assert X.norm() == pytest.approx(np.linalg.norm(vals))
    Y = grain.SparseTensor(idx, vals.astype(np.float32), shape=(10, 10, 10))
    assert Y.shape == (10, 10, 10) and Y.dtype == np.float32
    assert grain.SparseTensor(idx, [1, 2, 3, 4], dtype="float32").dtype == np.float32
    assert "nnz=4" in repr(X)


@pytest.mark.parametrize("name", ["t.tns", "t.tns.gz", "t.gst"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_read_write_round_trip(tmp_path, name, dtype):
    idx, vals = small()
    X = grain.SparseTensor(idx, vals, shape=(4, 5, 3), dtype=dtype)
    X.write(tmp_path / name)
    Y = grain.SparseTensor.read(str(tmp_path / name), dtype=dtype, shape=(4, 5, 3))
    assert Y.shape == X.shape and Y.dtype == dtype
    assert np.array_equal(Y.indices, X.indices) and np.array_equal(Y.values, X.values)


def test_sparse_errors(tmp_path):
    idx, vals = small()
    with pytest.raises(ValueError, match="negative"):
        grain.SparseTensor(idx - 1, vals)
    with pytest.raises(ValueError, match="outside the shape"):
        grain.SparseTensor(idx, vals, shape=(4, 4, 3))
    with pytest.raises(TypeError, match="give integers"):
        grain.SparseTensor(idx.astype(float), vals)
    with pytest.raises(ValueError, match=r"values must have shape \(4,\)"):
        grain.SparseTensor(idx, vals[:3])
    with pytest.raises(ValueError, match="not finite"):
        grain.SparseTensor(idx, [1, np.nan, 2, 3])
    with pytest.raises(ValueError, match=r"shape \(nnz, N\)"):
        grain.SparseTensor(idx[:, :1], vals)
    with pytest.raises(FileNotFoundError):
        grain.SparseTensor.read(tmp_path / "missing.tns")
    bad = tmp_path / "bad.tns"
    bad.write_text("1 2 3 1.0\n1 2.5 3 2.0\n")
    with pytest.raises(ValueError, match=r"bad\.tns:2:3: index '2\.5' of mode 2 is not an integer"):
        grain.SparseTensor.read(bad)
