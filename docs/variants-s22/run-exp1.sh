#!/usr/bin/env bash
# Session 22, run 1 (GPU machine, over .device-carry/ from `cmake --preset device && cmake --build
# --preset device && bash scripts/device-stage.sh` at the session's final code): every test suite
# on every back end, compute-sanitizer memcheck and racecheck over the CUDA contract tests, then
# the contraction suite in both layouts beside cuBLAS, and torch.einsum (scripts/device-run.sh
# "tests ff").
set -u
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=200 bash scripts/device-run.sh tests ff
