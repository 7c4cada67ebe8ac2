#!/usr/bin/env bash
# Session 7, run 4: flat with 8 partial sums in float under 2^18 outputs (LayoutLeft GPU): the
# CUDA contract tests, the Data kernels' suite, and a float DataField tune (LayoutLeft).
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
$C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='*/cuda.*:ContractMma.*:*Cuda*' > $o/contract-tests.txt 2>&1
echo "contract tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure" $o/contract-tests.txt | head -5
$G bench contract --backend cuda --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --algorithm flat,block,team-small-k,team-stride --json $o/data-left.json > $o/data-left.txt 2>&1
echo "bench rc=$?"; grep -A40 "Auto's pick per shape" $o/data-left.txt | head -40
timeout 240 $G tune --backend cuda --layout left --dtype float --kernel DataFieldScalar,DataFieldVector,DataFieldTensor,DataDataTensor \
  --fields 4,8,27,64,125 --points 27,64,216,512 --output $o/tune-left-float.txt > $o/tune-out.txt 2>&1
echo "tune rc=$?"; grep -E "K=(5[0-9][0-9]|[0-9]{4})" $o/tune-out.txt | head -40; tail -3 $o/tune-out.txt
