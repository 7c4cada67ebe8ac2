"""The nine contractions against numpy.einsum, zero-copy, and every error path."""
import numpy as np
import pytest

import grain

# name: (einsum of out from left, right; does left carry L; does right carry F/R; contracted dims)
KERNELS = {
    "data_data_scalar": ("cp,cp->c", False, False, 1),
    "data_data_vector": ("cpd,cpd->c", False, False, 2),
    "data_data_tensor": ("cpde,cpde->c", False, False, 3),
    "data_field_scalar": ("cp,cfp->cf", False, True, 1),
    "data_field_vector": ("cpd,cfpd->cf", False, True, 2),
    "data_field_tensor": ("cpde,cfpde->cf", False, True, 3),
    "field_field_scalar": ("clp,crp->clr", True, True, 1),
    "field_field_vector": ("clpd,crpd->clr", True, True, 2),
    "field_field_tensor": ("clpde,crpde->clr", True, True, 3),
}
C, L, R, P, D1, D2 = 7, 5, 3, 9, 3, 5  # odd, distinct: a transposed index cannot pass unnoticed
TOL = {np.float64: dict(rtol=1e-12, atol=1e-12), np.float32: dict(rtol=2e-5, atol=2e-5)}


def operands(name, dtype, order, rng, points=P):
    _, has_l, has_r, nk = KERNELS[name]
    k = (points, D1, D2)[:nk]
    left = rng.standard_normal((C,) + ((L,) if has_l else ()) + k)
    right = rng.standard_normal((C,) + ((R,) if has_r else ()) + (P, D1, D2)[:nk])
    conv = np.ascontiguousarray if order == "C" else np.asfortranarray
    return conv(left.astype(dtype)), conv(right.astype(dtype))


def expected(name, left, right):
    spec = KERNELS[name][0]
    if left.shape[1 + KERNELS[name][1]] == 1 and right.shape[2] != 1:  # a broadcast DataField data array
        left = np.broadcast_to(left, left.shape[:1] + right.shape[2:])
    return np.einsum(spec, left.astype(np.float64), right.astype(np.float64))


def fn(name):
    return getattr(grain, "contract_" + name)


def check(got, want, dtype):
    # equal_nan=False: a NaN left in `out` fails the comparison.
    np.testing.assert_allclose(got, want, equal_nan=False, **TOL[dtype])


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_against_einsum(name, dtype, order):
    rng = np.random.default_rng(abs(hash((name, order))) % 2**32)
    left, right = operands(name, dtype, order, rng)
    want = expected(name, left, right)
    # into a new array, in the inputs' layout
    got = fn(name)(left, right)
    assert got.dtype == dtype and got.shape == want.shape
    assert got.flags["C_CONTIGUOUS" if order == "C" else "F_CONTIGUOUS"]
    check(got, want, dtype)
    # into a NaN-poisoned out of either layout, overwritten; then summed into
    for out_order in "CF":
        out = np.full(want.shape, np.nan, dtype=dtype, order=out_order)
        assert fn(name)(left, right, out=out) is out
        check(out, want, dtype)
        fn(name)(left, right, out=out, sum_into=True)
        check(out, 2 * want, dtype)


@pytest.mark.parametrize("name", ["data_field_scalar", "data_field_vector", "data_field_tensor"])
def test_data_constant_over_points(name):
    rng = np.random.default_rng(3)
    left, right = operands(name, np.float64, "C", rng, points=1)
    check(fn(name)(left, right), expected(name, left, right), np.float64)


@pytest.mark.parametrize("algorithm", ["serial", "flat", "block", "tile", "team-small-k"])
def test_forced_algorithms(algorithm):
    rng = np.random.default_rng(4)
    left, right = operands("field_field_vector", np.float64, "C", rng)
    out = np.full((C, L, R), np.nan)
    grain.contract_field_field_vector(left, right, out=out, algorithm=algorithm)
    check(out, expected("field_field_vector", left, right), np.float64)


def test_out_is_written_in_place():
    rng = np.random.default_rng(5)
    left, right = operands("field_field_scalar", np.float64, "C", rng)
    out = np.full((C, L, R), np.nan)
    pointer = out.__array_interface__["data"][0]
    res = grain.contract_field_field_scalar(left, right, out=out)
    assert res is out and res.__array_interface__["data"][0] == pointer
    # a C-contiguous slice of a larger array is written where it lies
    big = np.full((C + 2, L, R), np.nan)
    grain.contract_field_field_scalar(left, right, out=big[1:-1])
    check(big[1:-1], expected("field_field_scalar", left, right), np.float64)
    assert np.isnan(big[0]).all() and np.isnan(big[-1]).all()


class DLPackOnly:
    """An array that offers only __dlpack__ (as a PyTorch or CuPy tensor does), over a NumPy array."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


@pytest.mark.skipif("dlpack" not in grain.info()["array_protocols"], reason="built without DLPack")
@pytest.mark.parametrize("order", ["C", "F"])
def test_dlpack_zero_copy(order):
    rng = np.random.default_rng(6)
    left, right = operands("field_field_tensor", np.float32, order, rng)
    out = np.full((C, L, R), np.nan, dtype=np.float32, order=order)
    res = grain.contract_field_field_tensor(DLPackOnly(left), DLPackOnly(right), out=DLPackOnly(out))
    assert isinstance(res, DLPackOnly) and res.a is out
    check(out, expected("field_field_tensor", left, right), np.float32)  # written through the capsule


def test_read_only_inputs_and_memoryview():
    rng = np.random.default_rng(7)
    left, right = operands("data_data_vector", np.float64, "C", rng)
    left.flags.writeable = False
    check(grain.contract_data_data_vector(memoryview(left), right), expected("data_data_vector", left, right),
          np.float64)


def test_empty_extents():
    left, right = np.zeros((0, L, P)), np.zeros((0, R, P))
    assert grain.contract_field_field_scalar(left, right).shape == (0, L, R)
    out = np.full((4, L, R), np.nan)
    grain.contract_field_field_scalar(np.zeros((4, L, 0)), np.zeros((4, R, 0)), out=out)
    assert (out == 0).all()


# ---- errors --------------------------------------------------------------------------------------

@pytest.fixture
def ff():
    rng = np.random.default_rng(8)
    return operands("field_field_scalar", np.float64, "C", rng)


def test_wrong_ndim(ff):
    left, right = ff
    with pytest.raises(ValueError, match=r"argument 'left' has 2 dimensions .* expected 3: \(C,L,P\)"):
        grain.contract_field_field_scalar(left[:, 0], right)
    with pytest.raises(ValueError, match=r"argument 'fields' has 4 dimensions"):
        grain.contract_data_field_scalar(left[:, 0], right[..., None])
    with pytest.raises(ValueError, match=r"argument 'out' has 2 dimensions"):
        grain.contract_field_field_scalar(left, right, out=np.zeros((C, L)))


def test_mismatched_extents(ff):
    left, right = ff
    with pytest.raises(ValueError, match=r"grain::contract_field_field_scalar: argument 'right' has extents"):
        grain.contract_field_field_scalar(left, np.ascontiguousarray(right[:, :, :-1]))
    with pytest.raises(ValueError, match=r"argument 'out' has extents"):
        grain.contract_field_field_scalar(left, right, out=np.zeros((C, L, R + 1)))


def test_bad_strides(ff):
    left, right = ff
    with pytest.raises(ValueError, match=r"'left' .* has strides .* np\.ascontiguousarray\(left\)"):
        grain.contract_field_field_scalar(left[:, :, ::2], np.ascontiguousarray(right[:, :, ::2]))
    with pytest.raises(ValueError, match=r"'out' .* has strides"):
        grain.contract_field_field_scalar(left, right, out=np.zeros((C, L, 2 * R))[:, :, ::2])
    with pytest.raises(ValueError, match=r"one layout"):
        grain.contract_field_field_scalar(left, np.asfortranarray(right))


def test_wrong_dtype(ff):
    left, right = ff
    with pytest.raises(TypeError, match=r"'left' has dtype int64; grain takes float32 or float64"):
        grain.contract_field_field_scalar(left.astype(np.int64), right)
    with pytest.raises(TypeError, match=r"'right' has dtype float32 but 'left' has float64"):
        grain.contract_field_field_scalar(left, right.astype(np.float32))
    with pytest.raises(TypeError, match=r"'out' has dtype float32"):
        grain.contract_field_field_scalar(left, right, out=np.zeros((C, L, R), np.float32))
    with pytest.raises(TypeError, match=r"not an array"):
        grain.contract_field_field_scalar(left.tolist(), right)


def test_unknown_or_inapplicable_algorithm(ff):
    left, right = ff
    with pytest.raises(ValueError, match=r"unknown contraction algorithm 'fastest'"):
        grain.contract_field_field_scalar(left, right, algorithm="fastest")
    with pytest.raises(ValueError, match=r"blas"):
        grain.contract_field_field_scalar(left, right, algorithm="blas")


def test_out_errors(ff):
    left, right = ff
    out = np.zeros((C, L, R))
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"'out' is read-only"):
        grain.contract_field_field_scalar(left, right, out=out)
    with pytest.raises(ValueError, match=r"sum_into=True .* pass out="):
        grain.contract_field_field_scalar(left, right, sum_into=True)
    square = np.zeros((C, L, L))
    with pytest.raises(ValueError, match=r"overlaps"):
        grain.contract_field_field_scalar(square, square, out=square)
