#!/usr/bin/env bash
# Session 16, run 2: the final binaries, with the suite's ceilings re-measured through the run
# (the highest kept) and each row's local roofline. Every GPU test suite, compute-sanitizer
# memcheck and racecheck over the contract suite, the contraction suite in both layouts beside
# cuBLAS and torch.einsum (scripts/device-run.sh tests ff).
set -u
out=${OUT:-exp2}
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=150 OUT="$out/main" bash scripts/device-run.sh tests ff
