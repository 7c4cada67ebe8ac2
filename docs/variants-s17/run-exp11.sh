#!/usr/bin/env bash
# Session 17, run 11: the final binaries (staged rows with 48 KiB a team). Every GPU test suite,
# compute-sanitizer memcheck and racecheck over the contract suite, the contraction suite in both
# layouts beside cuBLAS and torch.einsum (scripts/device-run.sh tests ff).
set -u
out=${OUT:-exp11}
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=150 OUT="$out/main" bash scripts/device-run.sh tests ff
