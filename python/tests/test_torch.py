"""PyTorch tensors, on the host and on the GPU: every contraction against numpy.einsum, results as
tensors of the inputs' device, zero copy, the caller's stream, and CP-ALS returning tensors."""
import numpy as np
import pytest

import grain
from test_contract import KERNELS, check, expected, fn, operands

torch = pytest.importorskip("torch")

GPU = grain.info()["cuda_compiled"] and torch.cuda.is_available() and "cuda" in grain.info()["backends"]
DEVICES = ["cpu"] + (["cuda"] if GPU else [])


def to_torch(a, device):
    """The NumPy array a as a tensor with the same strides (C or Fortran order) on device."""
    t = torch.from_numpy(a)
    if device == "cpu":
        return t
    out = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=device)
    out.copy_(t)
    return out


def host(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_against_einsum(device, name, dtype, order):
    rng = np.random.default_rng(abs(hash((name, order, device))) % 2**32)
    left, right = operands(name, dtype, order, rng)
    want = expected(name, left, right)
    tl, tr = to_torch(left, device), to_torch(right, device)
    got = fn(name)(tl, tr)
    # a new tensor of the inputs' device, element type and layout
    assert isinstance(got, torch.Tensor) and got.device == tl.device and got.dtype == tl.dtype
    assert tuple(got.shape) == want.shape
    assert (got if order == "C" else got.permute(*reversed(range(got.dim())))).is_contiguous()
    check(host(got), want, dtype)
    # into a NaN-poisoned out, overwritten in place, then summed into
    out = torch.full(want.shape, float("nan"), dtype=tl.dtype, device=device)
    pointer = out.data_ptr()
    assert fn(name)(tl, tr, out=out) is out and out.data_ptr() == pointer
    check(host(out), want, dtype)
    fn(name)(tl, tr, out=out, sum_into=True)
    check(host(out), 2 * want, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_inputs_are_not_copied(device):
    """grain reads the tensors' own memory: a change through a view of it shows in the next call."""
    rng = np.random.default_rng(11)
    left, right = operands("field_field_scalar", np.float64, "C", rng)
    tl, tr = to_torch(left, device), to_torch(right, device)
    first = host(grain.contract_field_field_scalar(tl, tr))
    tl.view(-1)[0] += 1.0  # in place: the same storage
    left2 = host(tl)
    second = host(grain.contract_field_field_scalar(tl, tr))
    check(second, expected("field_field_scalar", left2, right), np.float64)
    assert not np.allclose(first, second)


@pytest.mark.parametrize("device", DEVICES)
def test_errors(device):
    rng = np.random.default_rng(12)
    left, right = operands("field_field_scalar", np.float64, "C", rng)
    tl, tr = to_torch(left, device), to_torch(right, device)
    with pytest.raises(ValueError, match=r"'left' .* has strides"):
        grain.contract_field_field_scalar(tl[:, :, ::2], tr[:, :, ::2].contiguous())
    with pytest.raises(TypeError, match=r"'right' has dtype float32 but 'left' has float64"):
        grain.contract_field_field_scalar(tl, tr.float())
    with pytest.raises(TypeError, match=r"'left' has dtype int64"):
        grain.contract_field_field_scalar(tl.long(), tr)
    with pytest.raises(ValueError, match=r"argument 'out' has extents"):
        grain.contract_field_field_scalar(tl, tr, out=torch.zeros((3, 3, 3), dtype=tl.dtype, device=device))


@pytest.mark.skipif(not GPU, reason="no GPU, or grain built without CUDA")
def test_host_and_gpu_arrays_do_not_mix():
    rng = np.random.default_rng(13)
    left, right = operands("field_field_scalar", np.float64, "C", rng)
    with pytest.raises(ValueError, match=r"'left' is in a GPU and 'right' in host memory"):
        grain.contract_field_field_scalar(to_torch(left, "cuda"), to_torch(right, "cpu"))
    with pytest.raises(ValueError, match=r"'out' is in host memory and 'left' in a GPU"):
        grain.contract_field_field_scalar(to_torch(left, "cuda"), to_torch(right, "cuda"), out=np.zeros((7, 5, 3)))


@pytest.mark.skipif(not GPU, reason="no GPU, or grain built without CUDA")
def test_work_on_a_side_stream_is_ordered():
    """Inputs written and results read on a non-blocking side stream, with no synchronization by
    the caller: grain's work runs after the one and before the other."""
    n, L, R, P = 4000, 16, 16, 64
    s = torch.cuda.Stream()
    for _ in range(3):
        with torch.cuda.stream(s):
            a = torch.rand((n, L, P), device="cuda", dtype=torch.float64)
            b = torch.rand((n, R, P), device="cuda", dtype=torch.float64)
            for _ in range(20):  # keep the stream busy, so an unordered read would see old values
                a = a * 1.0001 + 1e-3
            out = grain.contract_field_field_scalar(a, b)
            ref = torch.einsum("clp,crp->clr", a, b)
            diff = (out - ref).abs().max()
        s.synchronize()
        assert float(diff) <= 1e-9 * float(ref.abs().max())


@pytest.mark.parametrize("device", DEVICES)
def test_cp_als_returns_tensors(device):
    rng = np.random.default_rng(14)
    dims, rank = (13, 11, 9), 3
    truth = [rng.random((d, rank)) for d in dims]
    dense = np.einsum("ir,jr,kr->ijk", *truth)
    idx = np.argwhere(dense >= 0)
    vals = dense[tuple(idx.T)]
    X = grain.SparseTensor(torch.from_numpy(idx).to(device), torch.from_numpy(vals).to(device))
    assert X.array_library == "torch" and X.shape == dims
    M = grain.cp_als(X, rank, maxiters=200, tol=1e-10, seed=3, device=device)
    assert isinstance(M.weights, torch.Tensor) and all(isinstance(f, torch.Tensor) for f in M.factors)
    assert M.factors[0].device.type == device and M.backend in (("cuda",) if device == "cuda" else ("openmp", "serial"))
    assert M.fit > 0.999
    np.testing.assert_allclose(M.full(), dense, rtol=1e-3, atol=1e-3 * dense.max())
    # the same start on the CPU: the same path, to rounding
    if device == "cuda":
        H = grain.cp_als(X, rank, maxiters=5, seed=3, device="cpu")
        G = grain.cp_als(X, rank, maxiters=5, seed=3, device="cuda")
        np.testing.assert_allclose(G.fits, H.fits, rtol=0, atol=1e-10)


def test_dtype_as_torch_dtype():
    X = grain.SparseTensor(np.array([[0, 0], [1, 1]]), np.array([1.0, 2.0]), dtype=torch.float32)
    assert X.dtype == np.float32
    with pytest.raises(TypeError, match=r"torch.int32"):
        grain.SparseTensor(np.array([[0, 0]]), np.array([1.0]), dtype=torch.int32)

