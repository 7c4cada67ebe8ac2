#!/usr/bin/env bash
# The demo itself, given the grain binary: what the machine has, then each capability at a small
# size on every back end present.
set -euo pipefail
grain=${1:?usage: demo-run.sh path/to/grain}
echo "== grain info"
"$grain" info
echo
echo "== core: triad and dot, grain against hand-written loops (small sizes)"
"$grain" bench core --n 4000000 --gpu-n 67108864 --reps 10
echo
echo "== contract: the nine contractions, every algorithm against copy/GEMM ceilings and cuBLAS/OpenBLAS (Q1, small budget, every back end)"
"$grain" bench contract --backend all --case Q1 --dtype double --budget-mib 8 --reps 10 --quiet
