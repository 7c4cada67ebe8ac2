#!/usr/bin/env bash
# Session 6: LayoutRight Data kernels, flat against team-small-k (16-byte lanes), and the contract tests.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
$C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*:*/cuda.*' > $o/contract-tests.txt 2>&1
echo "contract tests rc=$?"; grep -E "^\[  (PASSED|FAILED)" $o/contract-tests.txt
$G bench contract --backend cuda --layout right --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --algorithm flat,team-small-k,team-stride --reps 10 --json $o/data-right.json > $o/data-right.txt 2>&1
echo "bench rc=$?"; tail -n 40 $o/data-right.txt
