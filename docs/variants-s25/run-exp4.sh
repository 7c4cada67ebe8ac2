#!/usr/bin/env bash
# Session 25, run 4 (GPU machine, over .device-carry/ from `cmake --preset device && cmake --build
# --preset device && bash scripts/device-stage.sh`): compute-sanitizer memcheck over the CUDA
# contract tests, every test suite on every back end, the contraction suite in both layouts beside
# cuBLAS (mma in LayoutRight now too), and torch.einsum on row-major and on LayoutLeft inputs (scripts/device-run.sh "tests ff";
# its own sanitizer loop off, racecheck is run 2).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
GRAIN_TEST_SMALL=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1)" \
  | tee -a "$out/summary.txt"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests ff
