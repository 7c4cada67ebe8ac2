#!/usr/bin/env bash
# Session 27, run 5: the final code: session 26's run-exp9.sh (memcheck and racecheck over the
# cell-tile tests, memcheck over the CUDA contract tests, every test suite, both suites beside
# cuBLAS, torch.einsum in both layouts).
exec bash "$(dirname "$0")/../variants-s26/run-exp9.sh"
