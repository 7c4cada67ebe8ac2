#!/usr/bin/env bash
# Session 31, run 9 (H100), the final code: memcheck over every CUDA test of the contract suite.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests/grain_contract_tests
timeout 280 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*:ContractMma.*' \
  > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests (CUDA) rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$out/r/memcheck-contract.log" | tr '\n' ' ')" >> "$out/summary.txt"
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
