#!/usr/bin/env bash
# Session 34, run 1 (GPU machine): every GPU suite (the new Poisson tests among the examples
# suite), the example programs on every back end, memcheck and racecheck over the examples suite;
# then the poisson example at 128 cells an edge (every back end: the GPU's times for the README).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE='examples' SANITIZE_TIMEOUT=300 bash scripts/device-run.sh tests > /dev/null 2>&1
OMP_NUM_THREADS=2 OMP_PROC_BIND=true .device-carry/examples/poisson 128 > "$out/poisson-128.txt" 2>&1
echo "poisson 128 rc=$?" >> "$out/summary.txt"
cp "$out/r/example_poisson.log" "$out/poisson-64.txt" 2>/dev/null
cat "$out/summary.txt"; cat "$out/poisson-128.txt"
