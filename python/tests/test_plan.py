"""Plans (grain.plan_*): the model's and the measured algorithm against numpy.einsum in both
layouts, the plan cache, the tuning file, calls with arrays of another shape, layout or element
type, grain.explain, and PyTorch / CuPy arrays."""
import zlib

import numpy as np
import pytest

import grain
from test_contract import C, KERNELS, L, P, R, check, expected, operands

# name -> the C++ kernel name ("field_field_scalar" -> "FieldFieldScalar")
CAMEL = {name: "".join(w.capitalize() for w in name.split("_")) for name in KERNELS}
BACKENDS = ("serial", "openmp", "cuda")


def plan_fn(name):
    return getattr(grain, "plan_" + name)


def seed(*key):
    return zlib.crc32(repr(key).encode())


@pytest.fixture(autouse=True)
def no_tuning(monkeypatch):
    """No tuning file and an empty plan cache, so that sources are 'model' or 'measured' until a
    plan of the same shape class has measured; both restored afterwards."""
    monkeypatch.setenv("GRAIN_TUNING_FILE", "off")
    grain._grain._tuning_reset()
    grain.clear_plan_cache()
    yield
    monkeypatch.undo()
    grain._grain._tuning_reset()
    grain.clear_plan_cache()


def check_properties(plan, name, tuning):
    assert isinstance(plan, grain.Plan)
    assert plan.kernel == CAMEL[name]
    assert plan.backend in BACKENDS and plan.backend in grain.info()["backends"]
    assert plan.ranking and all(isinstance(a, str) for a in plan.ranking)
    assert plan.algorithm in plan.ranking
    if tuning == "model":
        assert plan.source == "model" and plan.timings == [] and plan.planning_ms == 0
        assert plan.algorithm == plan.ranking[0]
    else:
        assert plan.source == "measured" and plan.planning_ms > 0
        assert plan.timings and [t[0] for t in plan.timings] == plan.ranking[:len(plan.timings)]
        for algorithm, ms, cut in plan.timings:
            assert isinstance(algorithm, str) and ms > 0 and isinstance(cut, bool)
        assert plan.algorithm == min(plan.timings, key=lambda t: t[1])[0]
    assert repr(plan).startswith(f"grain.Plan(kernel='{CAMEL[name]}', algorithm='{plan.algorithm}'")


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("tuning", ["model", "measure"])
def test_against_einsum(name, dtype, order, tuning):
    rng = np.random.default_rng(seed(name, order, tuning))
    left, right = operands(name, dtype, order, rng)
    want = expected(name, left, right)
    out = np.full(want.shape, np.nan, dtype=dtype, order=order)
    plan = plan_fn(name)(left, right, out=out, tuning=tuning, candidates=3, reps=1)
    check_properties(plan, name, tuning)
    assert plan.dtype == dtype and plan.sum_into is False
    if tuning == "measure":
        check(out, want, dtype)  # measuring ran the contraction into out
    # into a NaN-poisoned out, overwritten
    out[...] = np.nan
    assert plan(left, right, out=out) is out
    check(out, want, dtype)
    # into a new array in the inputs' layout
    got = plan(left, right)
    assert isinstance(got, np.ndarray) and got.dtype == dtype and got.shape == want.shape
    assert got.flags["C_CONTIGUOUS" if order == "C" else "F_CONTIGUOUS"]
    check(got, want, dtype)
    # new values in arrays of the same shape: the plan is for the shape, not the data
    left2, right2 = operands(name, dtype, order, rng)
    check(plan(left2, right2), expected(name, left2, right2), dtype)


def test_plan_without_out_and_the_default_options():
    rng = np.random.default_rng(1)
    left, right = operands("field_field_vector", np.float64, "C", rng)
    plan = grain.plan_field_field_vector(left, right, tuning="measure")
    check_properties(plan, "field_field_vector", "measure")
    assert len(plan.timings) == min(4, len(plan.ranking))
    check(plan(left, right), expected("field_field_vector", left, right), np.float64)


def test_second_measure_plan_comes_from_the_plan_cache():
    rng = np.random.default_rng(2)
    left, right = operands("field_field_scalar", np.float64, "C", rng)
    first = grain.plan_field_field_scalar(left, right, tuning="measure", candidates=3, reps=1)
    assert first.source == "measured" and first.timings
    second = grain.plan_field_field_scalar(left, right, tuning="measure")
    assert second.source == "plan cache" and second.timings == [] and second.planning_ms == 0
    assert second.algorithm == first.algorithm
    # a model plan and Auto take the measured winner too
    assert grain.plan_field_field_scalar(left, right).source == "plan cache"
    text = grain.explain("FieldFieldScalar", (C, L, R, P), backend=first.backend, layout="right")
    assert f"pick: {first.algorithm} (plan cache)" in text
    check(second(left, right), expected("field_field_scalar", left, right), np.float64)
    # another element type or layout is another shape class
    assert grain.plan_field_field_scalar(left.astype(np.float32), right.astype(np.float32)).source == "model"
    assert grain.plan_field_field_scalar(np.asfortranarray(left), np.asfortranarray(right)).source == "model"
    grain.clear_plan_cache()
    assert grain.plan_field_field_scalar(left, right).source == "model"
    assert grain.plan_field_field_scalar(left, right, tuning="measure", reps=1).source == "measured"


def test_save_to_a_tuning_file(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    left, right = operands("data_field_vector", np.float64, "C", rng)
    path = tmp_path / "contract-tuning.txt"
    plan = grain.plan_data_field_vector(left, right, tuning="measure", candidates=2, reps=1, save=True,
                                        tuning_file=str(path))
    assert plan.source == "measured"
    text = path.read_text()
    assert "DataFieldVector" in text and plan.algorithm in text
    # Auto reads that file: a new plan of the shape class takes its entry
    monkeypatch.setenv("GRAIN_TUNING_FILE", str(path))
    grain._grain._tuning_reset()
    grain.clear_plan_cache()
    again = grain.plan_data_field_vector(left, right)
    assert again.source == str(path) and again.algorithm == plan.algorithm
    check(again(left, right), expected("data_field_vector", left, right), np.float64)


def test_sum_into():
    rng = np.random.default_rng(4)
    left, right = operands("data_data_tensor", np.float64, "F", rng)
    want = expected("data_data_tensor", left, right)
    out = np.zeros(want.shape)
    plan = grain.plan_data_data_tensor(left, right, out=out, sum_into=True, tuning="measure", reps=1)
    assert plan.sum_into and "sum_into=True" in repr(plan)
    out[...] = want  # measuring added into out: fill it after planning
    assert plan(left, right, out=out) is out
    check(out, 2 * want, np.float64)
    with pytest.raises(ValueError, match=r"grain.Plan: sum_into=True adds into 'out'; pass out="):
        plan(left, right)
    with pytest.raises(ValueError, match=r"sum_into=True adds into 'out'; pass out="):
        grain.plan_data_data_tensor(left, right, sum_into=True)


@pytest.mark.parametrize("tuning", ["model", "measure"])
def test_calls_with_other_arrays(tuning):
    rng = np.random.default_rng(5)
    left, right = operands("field_field_scalar", np.float64, "C", rng)
    plan = grain.plan_field_field_scalar(left, right, tuning=tuning, candidates=2, reps=1)
    made = rf"made for out \({C},{L},{R}\), left \({C},{L},{P}\), right \({C},{R},{P}\) \(contracted index fastest"
    # other extents: grain's message names both
    called = rf".*; called with out \({C - 1},{L},{R}\), left \({C - 1},{L},{P}\)"
    with pytest.raises(ValueError, match=made + called):
        plan(left[1:], right[1:])
    with pytest.raises(ValueError, match=rf"argument 'out' has extents \({C},{L},{R + 1}\)"):
        plan(left, right, out=np.zeros((C, L, R + 1)))
    # the other layout
    with pytest.raises(ValueError, match=made + r".*called with .*cells fastest: LayoutLeft"):
        plan(np.asfortranarray(left), np.asfortranarray(right))
    with pytest.raises(ValueError, match=made + r".*make a plan for these Views"):
        plan(left, right, out=np.zeros((C, L, R), order="F"))
    # another element type, rank, or strides that are neither layout
    with pytest.raises(TypeError, match=r"made for float64 arrays, called with float32 ones"):
        plan(left.astype(np.float32), right.astype(np.float32))
    with pytest.raises(ValueError, match=r"grain.Plan: argument 'left' has 2 dimensions"):
        plan(left[:, 0], right)
    with pytest.raises(ValueError, match=r"grain.Plan: argument 'left' .* has strides"):
        plan(left[:, :, ::2], right[:, :, ::2])
    # the plan still works with its own arrays
    check(plan(left, right), expected("field_field_scalar", left, right), np.float64)


def test_bad_arguments():
    rng = np.random.default_rng(6)
    left, right = operands("data_field_scalar", np.float64, "C", rng)
    with pytest.raises(ValueError, match=r"plan_data_field_scalar: unknown tuning 'fast' \(model or measure\)"):
        grain.plan_data_field_scalar(left, right, tuning="fast")
    with pytest.raises(ValueError, match=r"unknown device 'tpu'"):
        grain.plan_data_field_scalar(left, right, device="tpu")
    with pytest.raises(ValueError, match=r"candidates and reps must be >= 0"):
        grain.plan_data_field_scalar(left, right, tuning="measure", candidates=-1)
    with pytest.raises(ValueError, match=r"argument 'data' has 3 dimensions"):
        grain.plan_data_field_scalar(right, right)
    with pytest.raises(TypeError, match=r"'fields' has dtype float32 but 'data' has float64"):
        grain.plan_data_field_scalar(left, right.astype(np.float32))
    if "cuda" not in grain.info()["array_devices"]:
        with pytest.raises(ValueError, match=r"exec = cuda"):
            grain.plan_data_field_scalar(left, right, device="cuda")


def test_device_serial():
    rng = np.random.default_rng(7)
    left, right = operands("field_field_tensor", np.float64, "C", rng)
    plan = grain.plan_field_field_tensor(left, right, device="serial", tuning="measure", candidates=2, reps=1)
    assert plan.backend == "serial" and plan.source == "measured"
    check(plan(left, right), expected("field_field_tensor", left, right), np.float64)
    cpu = grain.plan_field_field_tensor(left, right, device="cpu")
    assert cpu.backend == ("openmp" if "openmp" in grain.info()["backends"] else "serial")


def test_explain():
    text = grain.explain("FieldFieldScalar", (1000, 8, 8, 27), backend="serial")
    assert text.startswith("FieldFieldScalar C=1000 L=8 R=8 P=27, double, layout right, back end serial\n")
    assert "pick: " in text and "model's pick: " in text
    assert grain.explain("FieldFieldScalar", "1000,8,8,27", backend="serial") == text
    assert grain.explain("field_field_scalar", [1000, 8, 8, 27], backend="serial", dtype="double") == text
    numpy_ints = (np.int64(1000), 8, 8, 27)
    assert grain.explain("FieldFieldScalar", numpy_ints, backend="serial", dtype=np.float64) == text
    # defaults: D1 and D2 of 3, layout left on cuda (explained without a GPU too)
    t = grain.explain("FieldFieldTensor", (100, 4, 4, 8), dtype="float32", backend="cuda")
    assert t.startswith("FieldFieldTensor C=100 L=4 R=4 P=8 D1=3 D2=3, float, layout left, back end cuda\n")
    assert ", float, layout right," in grain.explain("DataFieldVector", (100, 1, 4, 8, 2), dtype=np.float32,
                                                     layout="right", backend="cuda")
    default = grain.explain("DataDataScalar", "100,1,1,8")
    assert "pick: " in default
    with pytest.raises(ValueError, match=r"unknown contraction kernel 'FieldField'"):
        grain.explain("FieldField", (1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"expected C,L,R,P"):
        grain.explain("FieldFieldScalar", (1, 2))
    with pytest.raises(ValueError, match=r"L must be 1"):
        grain.explain("DataFieldScalar", (10, 2, 3, 4))
    with pytest.raises(ValueError, match=r"C must be a whole number >= 1"):
        grain.explain("FieldFieldScalar", (0, 2, 3, 4))
    with pytest.raises(TypeError, match=r"shape entry 2.5"):
        grain.explain("FieldFieldScalar", (10, 2.5, 3, 4))
    with pytest.raises(ValueError, match=r"unknown layout 'diagonal'"):
        grain.explain("FieldFieldScalar", (10, 2, 3, 4), layout="diagonal")
    with pytest.raises(ValueError, match=r"unknown back end 'tpu'"):
        grain.explain("FieldFieldScalar", (10, 2, 3, 4), backend="tpu")


# ---- PyTorch and CuPy ----------------------------------------------------------------------------

def torch_gpu():
    torch = pytest.importorskip("torch")
    info = grain.info()
    return torch, info["cuda_compiled"] and torch.cuda.is_available() and "cuda" in info["backends"]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("tuning", ["model", "measure"])
def test_torch(device, order, tuning):
    torch, gpu = torch_gpu()
    if device == "cuda" and not gpu:
        pytest.skip("no GPU, or grain built without CUDA")
    rng = np.random.default_rng(seed("torch", device, order, tuning))
    left, right = operands("field_field_vector", np.float64, order, rng)
    want = expected("field_field_vector", left, right)

    def to_torch(a):  # the same strides (C or Fortran order) on device
        t = torch.from_numpy(a)
        out = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=device)
        return out.copy_(t)

    tl, tr = to_torch(left), to_torch(right)
    out = to_torch(np.full(want.shape, np.nan, order=order))
    plan = grain.plan_field_field_vector(tl, tr, out=out, tuning=tuning, candidates=3, reps=1)
    check_properties(plan, "field_field_vector", tuning)
    assert plan.backend in (("cuda",) if device == "cuda" else ("openmp", "serial"))
    out.fill_(float("nan"))
    pointer = out.data_ptr()
    assert plan(tl, tr, out=out) is out and out.data_ptr() == pointer
    check(out.cpu().numpy(), want, np.float64)
    got = plan(tl, tr)
    assert isinstance(got, torch.Tensor) and got.device == tl.device and got.dtype == tl.dtype
    check(got.cpu().numpy(), want, np.float64)


def test_torch_gpu_side_stream():
    """A plan's calls on a non-blocking side stream, with no synchronization by the caller."""
    torch, gpu = torch_gpu()
    if not gpu:
        pytest.skip("no GPU, or grain built without CUDA")
    n, L2, R2, P2 = 4000, 16, 16, 64
    shape_a, shape_b = (n, L2, P2), (n, R2, P2)
    plan = grain.plan_field_field_scalar(torch.rand(shape_a, device="cuda", dtype=torch.float64),
                                         torch.rand(shape_b, device="cuda", dtype=torch.float64), tuning="measure")
    assert plan.backend == "cuda"
    s = torch.cuda.Stream()
    for _ in range(3):
        with torch.cuda.stream(s):
            a = torch.rand(shape_a, device="cuda", dtype=torch.float64)
            b = torch.rand(shape_b, device="cuda", dtype=torch.float64)
            for _ in range(20):  # keep the stream busy, so an unordered read would see old values
                a = a * 1.0001 + 1e-3
            out = plan(a, b)
            ref = torch.einsum("clp,crp->clr", a, b)
            diff = (out - ref).abs().max()
        s.synchronize()
        assert float(diff) <= 1e-9 * float(ref.abs().max())


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy(order, dtype):
    cupy = pytest.importorskip("cupy")
    if not (grain.info()["cuda_compiled"] and "cuda" in grain.info()["backends"]):
        pytest.skip("grain built without CUDA, or no GPU")
    rng = np.random.default_rng(seed("cupy", order, dtype))
    left, right = operands("field_field_scalar", dtype, order, rng)
    want = expected("field_field_scalar", left, right)
    cl, cr = cupy.asarray(left, order=order), cupy.asarray(right, order=order)
    plan = grain.plan_field_field_scalar(cl, cr, tuning="measure", candidates=3, reps=1)
    check_properties(plan, "field_field_scalar", "measure")
    assert plan.backend == "cuda"
    assert f"layout {'right' if order == 'C' else 'left'}" in grain.explain(
        "FieldFieldScalar", (C, L, R, P), layout="right" if order == "C" else "left",
        dtype=dtype, backend="cuda")
    got = plan(cl, cr)
    assert isinstance(got, cupy.ndarray) and got.flags["C_CONTIGUOUS" if order == "C" else "F_CONTIGUOUS"]
    check(got.get(), want, dtype)
    out = cupy.full(want.shape, cupy.nan, dtype=dtype, order=order)
    assert plan(cl, cr, out=out) is out
    check(out.get(), want, dtype)
    with cupy.cuda.Stream(non_blocking=True):
        scaled = cupy.multiply(cl, 2, out=cupy.empty_like(cl))  # in cl's layout
        got = plan(scaled, cr).get()  # on the current stream: ordered after grain's work
    check(got, 2 * want, dtype)
    other = cupy.asfortranarray if order == "C" else cupy.ascontiguousarray
    with pytest.raises(ValueError, match=r"extents or strides differ"):
        plan(other(cl), other(cr))
