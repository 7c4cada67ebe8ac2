#!/usr/bin/env bash
# Session 18, run 5: the final binaries (run 4's), the tuning tests (run 4 named their binary
# wrongly), and the contraction suite in both layouts beside cuBLAS and torch.einsum
# (scripts/device-run.sh ff).
set -u
out=${OUT:-exp5}
mkdir -p "$out"
GRAIN_TEST_SMALL=1 timeout 60 .device-carry/tests/grain_contract_tuning_tests --gtest_brief=1 > "$out/tuning.log" 2>&1
echo "TEST tuning rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tuning.log" | tr '\n' ' ')"
OUT="$out/main" bash scripts/device-run.sh ff
