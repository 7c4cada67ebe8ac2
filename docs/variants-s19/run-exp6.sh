#!/usr/bin/env bash
# Session 19, run 6: the final binaries: every GPU test suite, compute-sanitizer memcheck and
# racecheck over the contract suite's CUDA tests.
set -u
OUT=${OUT:-exp6} GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=150 bash scripts/device-run.sh tests
