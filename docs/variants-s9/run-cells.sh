#!/usr/bin/env bash
# Session 9, run 9: team-small-k's staged cells (small FieldField cells in LayoutRight) against
# flat, blas and cuBLAS on FieldField Q1, after the contract tests on the GPU.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | grep -E "Failure|FAILED|PASSED|: out" | head -20
G=.device-carry/grain
"$G" bench contract --backend cuda --layout right --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q1 \
  --algorithm flat,team-small-k,blas,cublas-strided-batched --json $o/ff-q1-right.json > $o/ff-q1-right.txt 2>&1
echo "rc=$?"; grep -E 'Q1' $o/ff-q1-right.txt | head -30
