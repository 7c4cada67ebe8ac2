#!/usr/bin/env bash
# Runs the Python package's tests (python/tests) against the module a CMake build made (default
# build/host), with PYTHONPATH=<build>/python: no install. The interpreter is the first of the
# build's own, python3 and /usr/bin/python3 that loads the module (same extension suffix) and has
# NumPy and pytest. Prints "python: skipped ..." and succeeds when the build has no module
# (pybind11 or Python's headers were missing when it was configured).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/host}
module=$(ls "$build"/python/grain/_grain*.so 2>/dev/null | head -1 || true)
if [ -z "$module" ]; then
  echo "python: skipped (no grain module in $build: pybind11 or Python's headers were not found)"
  exit 0
fi
suffix=${module##*/_grain}
cached=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
for py in $cached python3 /usr/bin/python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  "$py" -c "import sys, sysconfig, numpy, pytest
sys.exit(sysconfig.get_config_var('EXT_SUFFIX') != '$suffix')" 2>/dev/null || continue
  echo "+ PYTHONPATH=$build/python $py -m pytest python/tests"
  PYTHONPATH="$PWD/$build/python" exec "$py" -m pytest -q -p no:cacheprovider python/tests
done
echo "python: no interpreter with NumPy and pytest loads $module (Debian: python3-numpy python3-pytest)" >&2
exit 1
