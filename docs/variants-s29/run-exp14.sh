#!/usr/bin/env bash
# Session 29, run 14 (H100): the review mend (shared row-stride / fragment-check helpers,
# ContractProblem::out_dense): the contract and tuning suites, and memcheck over the mma tests.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
for t in grain_contract_tests grain_contract_tuning_tests; do
  timeout 240 "$T/$t" --gtest_brief=1 > "$out/r/$t.log" 2>&1
  echo "TEST $t rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/$t.log" | head -2)" | tee -a "$out/summary.txt"
done
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$T/grain_contract_tests" \
  --gtest_filter='ContractMma.*' > "$out/r/memcheck-mma.log" 2>&1
echo "SANITIZER memcheck ContractMma.* rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-mma.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/memcheck-mma.log" | head -2)" \
  | tee -a "$out/summary.txt"
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
