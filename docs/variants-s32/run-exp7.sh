#!/usr/bin/env bash
# Session 32, run 7 (H100), the final code (the host paths keyed on __CUDA_ARCH__, so this nvcc
# build now compiles block's LayoutLeft cell kernel and the host tests that exercise it): every
# GPU test suite.
set -u
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
