#!/usr/bin/env bash
# Session 13, run 15: the final commit (line lengths only since run 13): the contract and tuning
# suites, and compute-sanitizer memcheck over the CUDA and mma tests.
set -u
C=.device-carry
for t in grain_contract_tests grain_contract_tuning_tests; do
  GRAIN_TEST_SMALL=1 $C/tests/$t --gtest_brief=1 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|FAILED"
  echo "$t rc=${PIPESTATUS[0]}"
done
GRAIN_TEST_SMALL=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*Mma*:*Cuda*:*cuda*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
