#!/usr/bin/env bash
# Session 25, run 1 (and, through run-exp4.sh, runs 4, 5 and 9): session 24's run-exp1.sh over this
# session's binaries (from `cmake --preset device && cmake --build --preset device && bash
# scripts/device-stage.sh`): compute-sanitizer memcheck over the CUDA contract tests, every test
# suite on every back end, the contraction suite in both layouts beside cuBLAS, and (since this
# session's scripts/device-run.sh) torch.einsum on row-major and on LayoutLeft inputs.
exec bash "$(dirname "$0")/../variants-s24/run-exp1.sh"
