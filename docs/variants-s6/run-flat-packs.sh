#!/usr/bin/env bash
# Session 6: flat with 16-byte loads along K (LayoutRight), every kernel, and the contract tests.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
$C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='*/cuda.*:ContractMma.*' > $o/contract-tests.txt 2>&1
echo "contract tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure" $o/contract-tests.txt | head -5
$G bench contract --backend cuda --layout right --kernel all --algorithm flat,team-small-k,blas,cublas-strided-batched \
  --reps 10 --json $o/right.json > $o/right.txt 2>&1
echo "bench rc=$?"; tail -n 75 $o/right.txt | head -74
