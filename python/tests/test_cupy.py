"""CuPy arrays on the GPU: contractions against numpy.einsum into new CuPy arrays and into out=
without a copy, and CP-ALS from CuPy arrays returning CuPy factors."""
import numpy as np
import pytest

import grain
from test_contract import KERNELS, check, expected, fn, operands

cupy = pytest.importorskip("cupy")
if not (grain.info()["cuda_compiled"] and "cuda" in grain.info()["backends"]):
    pytest.skip("grain built without CUDA, or no GPU", allow_module_level=True)


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_against_einsum(name, dtype, order):
    rng = np.random.default_rng(abs(hash((name, order, "cupy"))) % 2**32)
    left, right = operands(name, dtype, order, rng)
    want = expected(name, left, right)
    cl, cr = cupy.asarray(left, order=order), cupy.asarray(right, order=order)
    got = fn(name)(cl, cr)
    assert isinstance(got, cupy.ndarray) and got.dtype == dtype and got.shape == want.shape
    assert got.flags["C_CONTIGUOUS" if order == "C" else "F_CONTIGUOUS"]
    check(got.get(), want, dtype)
    out = cupy.full(want.shape, cupy.nan, dtype=dtype)
    pointer = out.data.ptr
    assert fn(name)(cl, cr, out=out) is out and out.data.ptr == pointer
    check(out.get(), want, dtype)


def test_on_a_non_default_stream():
    rng = np.random.default_rng(21)
    left, right = operands("field_field_vector", np.float64, "C", rng)
    with cupy.cuda.Stream(non_blocking=True):
        cl, cr = cupy.asarray(left), cupy.asarray(right)
        got = grain.contract_field_field_vector(cl * 2.0, cr)
        host = got.get()  # on the current stream: ordered after grain's work
    check(host, 2 * expected("field_field_vector", left, right), np.float64)


def test_cp_als_returns_cupy_arrays():
    rng = np.random.default_rng(22)
    dims, rank = (10, 12, 8), 2
    truth = [rng.random((d, rank)) for d in dims]
    dense = np.einsum("ir,jr,kr->ijk", *truth)
    idx = np.argwhere(dense >= 0)
    X = grain.SparseTensor(cupy.asarray(idx), cupy.asarray(dense[tuple(idx.T)]))
    assert X.array_library == "cupy"
    M = grain.cp_als(X, rank, maxiters=200, tol=1e-10, seed=5, device="cuda")
    assert M.backend == "cuda" and all(isinstance(f, cupy.ndarray) for f in M.factors)
    assert M.fit > 0.999
