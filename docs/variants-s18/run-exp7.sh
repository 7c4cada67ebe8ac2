#!/usr/bin/env bash
# Session 18, run 7: the final binaries. Every GPU test suite, compute-sanitizer memcheck and
# racecheck over the contract suite, the contraction suite in both layouts beside cuBLAS and
# torch.einsum (scripts/device-run.sh tests ff).
set -u
out=${OUT:-exp7}
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=150 OUT="$out/main" bash scripts/device-run.sh tests ff
