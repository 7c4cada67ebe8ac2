#!/usr/bin/env bash
# grain's main job: installs what is missing, builds (with CUDA when nvcc is present), and runs
# the demo on every back end present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target grain_cli example_poisson
exec bash scripts/demo-run.sh build/default/apps/grain/grain build/default/examples/poisson
