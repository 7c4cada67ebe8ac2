#!/usr/bin/env bash
# Builds grain and runs its tests: the tree check (scripts/check-tree.sh), the Serial and OpenMP
# back ends in Release and under AddressSanitizer + UndefinedBehaviorSanitizer with bounds checks,
# and, when nvcc is present, the CUDA back end with every test (on a machine without a GPU the
# library, the tool and the tool's suite: the rest would repeat the host run); then, when clang
# has libFuzzer, the fuzz targets for a bounded time (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=${GRAIN_JOBS:-$(nproc)}
run() { echo "+ $*"; "$@"; }
run bash scripts/check-tree.sh
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# ctest with its output kept for the closing summary.
run_ctest() {
  local preset=$1
  shift
  echo "+ ctest --preset $preset -j $jobs $*"
  ctest --preset "$preset" -j "$jobs" "$@" 2>&1 | tee "$logs/$preset.log"
  return "${PIPESTATUS[0]}"
}

run cmake --preset host >/dev/null
run cmake --build --preset host -j "$jobs"
run_ctest host

# The Python package (python/): pytest against the module the host build made, not installed; it
# says "python: skipped" when that build found no pybind11.
run bash python/tests/run.sh build/host

run cmake --preset asan >/dev/null
run cmake --build --preset asan -j "$jobs"
run_ctest asan

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  run cmake --preset cuda >/dev/null
  # Without a GPU the CUDA build's CPU back ends would repeat the host run's tests and its GPU
  # tests cannot run: the library, the tool and the tool's suite are built (every CUDA source of
  # the library and the tool compiles) and that suite runs, for what differs there. The suites
  # compiled for the GPU are built where they run (scripts/device-stage.sh).
  if nvidia-smi -L >/dev/null 2>&1; then
    run cmake --build --preset cuda -j "$jobs"
    run_ctest cuda
  else
    run cmake --build --preset cuda -j "$jobs" --target grain_cli grain_cli_tests
    run_ctest cuda -R '^Cli[.]'
  fi
else
  echo "grain: nvcc not found; the CUDA back end was not compiled"
fi

# The fuzz targets over every reader of outside data (scripts/fuzz.sh), when clang has libFuzzer.
fuzz_line="fuzz: skipped (no clang with libFuzzer)"
if bash scripts/fuzz.sh --check; then
  run bash scripts/fuzz.sh 2>&1 | tee "$logs/fuzz.out"
  fuzz_line=$(grep -E '^fuzz: ' "$logs/fuzz.out" | tail -1)
fi

# One closing line over every configuration: passed, failed, skipped (CUDA tests skip without a GPU).
total=0 failed=0 skipped=0
for f in "$logs"/*.log; do
  line=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$f" | tail -1)
  t=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  x=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/')
  s=$(grep -c '(Skipped)' "$f" || true)
  total=$((total + t)); failed=$((failed + x)); skipped=$((skipped + s))
done
echo
echo "$fuzz_line"
echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
