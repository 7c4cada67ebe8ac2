#!/usr/bin/env bash
# Builds grain and runs its tests: the Serial and OpenMP back ends in Release and under
# AddressSanitizer + UndefinedBehaviorSanitizer with bounds checks, and, when nvcc is present,
# compiles the CUDA back end with every test (its CPU back ends run; its GPU tests run only on a
# machine with a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=${GRAIN_JOBS:-$(nproc)}
run() { echo "+ $*"; "$@"; }

run cmake --preset host >/dev/null
run cmake --build --preset host -j "$jobs"
run ctest --preset host -j "$jobs"

run cmake --preset asan >/dev/null
run cmake --build --preset asan -j "$jobs"
run ctest --preset asan -j "$jobs"

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  run cmake --preset cuda >/dev/null
  run cmake --build --preset cuda -j "$jobs"
  run ctest --preset cuda -j "$jobs"
else
  echo "grain: nvcc not found; the CUDA back end was not compiled"
fi
