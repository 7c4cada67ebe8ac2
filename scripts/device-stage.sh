#!/usr/bin/env bash
# Collects the GPU machine's payload from a `device`-preset build into .device-carry/ (ignored by
# git): the grain tool and every test binary. Those binaries link libstdc++/libgomp/zlib/cudart
# statically and cuBLAS dynamically (the GPU machine has the CUDA runtime and cuBLAS).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/device}
rm -rf .device-carry && mkdir -p .device-carry/tests
cp "$build/apps/grain/grain" .device-carry/
for t in "$build"/tests/*/grain_*_tests; do cp "$t" .device-carry/tests/; done
strip .device-carry/grain .device-carry/tests/* 2>/dev/null || true
du -sh .device-carry
