#!/usr/bin/env bash
# Session 21, run 2 (GPU machine, .device-carry/ rebuilt at 77c6868: LayoutLeft cells as vectors on
# the CPU, huge pages for large host Views): every test suite on every back end, compute-sanitizer
# memcheck and racecheck over the CUDA contract tests (scripts/device-run.sh "tests").
set -u
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=200 bash scripts/device-run.sh tests
