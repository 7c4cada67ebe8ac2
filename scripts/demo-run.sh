#!/usr/bin/env bash
# The demo itself, given the grain binary: what the machine has, then each capability at a small
# size on every back end present.
set -euo pipefail
grain=${1:?usage: demo-run.sh path/to/grain [path/to/examples/poisson]}
poisson=${2:-}
echo "== grain info"
"$grain" info
echo
echo "== core: triad and dot, grain against hand-written loops (small sizes)"
"$grain" bench core --n 4000000 --gpu-n 67108864 --reps 10
echo
echo "== contract: the nine contractions, every algorithm against copy/GEMM ceilings and cuBLAS/OpenBLAS (Q1, small budget, every back end)"
"$grain" bench contract --backend all --case Q1 --dtype double --budget-mib 8 --reps 10 --quiet
echo
echo "== cp: generate a small sparse tensor (Genten's random-Ktensor kind) and decompose it by CP-ALS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$grain" generate --kind random-ktensor --dims 300x400x500 --nnz 200000 --seed 7 --output "$tmp/demo.tns"
"$grain" cp-als "$tmp/demo.tns" --rank 8 --maxiters 15 --seed 1 --output "$tmp/demo"
echo
echo "== paper: hexahedral basis gradients and Modified Gram-Schmidt, grain against hand-written (small sizes)"
"$grain" bench paper --backend all --max-n 100000 --reps 5
if [ -n "$poisson" ]; then
  echo
  echo "== finite elements: -lap u + u = f on the unit cube, element matrices by the contractions, assembled and solved by CG on every back end"
  "$poisson" 32
fi
