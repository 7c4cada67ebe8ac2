#!/usr/bin/env bash
# Session 18, run 10: the final binaries (field pairs as teams of 64). The contract tests,
# memcheck and racecheck over the contract suite's CUDA tests, and the LayoutLeft contraction suite
# beside cuBLAS (docs/bench-contract-h100-s18-left.json; the LayoutRight file and torch.einsum are
# run 7's, whose code paths this change does not touch).
set -u
out=${OUT:-exp10}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
GRAIN_TEST_SMALL=1 timeout 200 $C/tests/grain_contract_tests --gtest_brief=1 > "$out/r/contract.log" 2>&1
echo "TEST contract rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
grep -E '^\[  FAILED  \]' "$out/r/contract.log" | head | tee -a "$out/summary.txt"
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 170 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter='*cuda*:*Cuda*' > "$out/r/$tool.log" 2>&1
  echo "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool.log" | tail -1)" | tee -a "$out/summary.txt"
done
timeout 200 $G bench contract --backend cuda --kernel all \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout left \
  --json "$out/r/ff-left.json" > "$out/r/ff-left.txt" 2>&1
echo "bench contract layout left rc=$?" | tee -a "$out/summary.txt"
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
