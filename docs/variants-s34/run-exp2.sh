#!/usr/bin/env bash
# Session 34, run 2 (GPU machine): run 1 again after the poisson example's matrix moved from CSR to
# ELLPACK in the space's default layout (every GPU suite, the example programs, memcheck and
# racecheck over the examples suite, then poisson at 128 cells an edge on the GPU alone).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE='examples' SANITIZE_TIMEOUT=300 bash scripts/device-run.sh tests > /dev/null 2>&1
.device-carry/examples/poisson 128 cuda > "$out/poisson-128.txt" 2>&1
echo "poisson 128 rc=$?" >> "$out/summary.txt"
cat "$out/summary.txt"; cat "$out/poisson-128.txt"
