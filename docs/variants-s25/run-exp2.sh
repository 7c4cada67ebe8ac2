#!/usr/bin/env bash
# Session 25, run 2 (the same binaries as run 1): compute-sanitizer racecheck over the CUDA
# contract tests (the mma, warpgroup and team kernels with shared memory), then memcheck over the
# CUDA instantiations of the core, sparse and CP suites.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh
T=.device-carry/tests
GRAIN_TEST_SMALL=1 timeout 400 compute-sanitizer --tool racecheck --error-exitcode 9 $T/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/racecheck-contract.log" 2>&1
echo "SANITIZER racecheck grain_contract_tests rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck-contract.log" | tail -1)" | tee -a "$out/summary.txt"
for t in core sparse cp; do
  GRAIN_TEST_SMALL=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $T/grain_${t}_tests \
    --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/memcheck-$t.log" 2>&1
  echo "SANITIZER memcheck grain_${t}_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck-$t.log" | tail -1)" | tee -a "$out/summary.txt"
done
tail -c 3000 "$out/racecheck-contract.log"
