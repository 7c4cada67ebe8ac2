#!/usr/bin/env bash
# Session 27, run 6: what run 5 (run-exp5.sh) did not reach in its 600 s: the LayoutRight suite
# beside cuBLAS and torch.einsum in both layouts (as scripts/device-run.sh's ff mode runs them).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
"$G" bench contract --backend cuda --kernel all \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout right \
  --json "$out/r/ff-right.json" > "$out/r/ff-right.txt" 2>&1
echo "bench contract layout right rc=$?" | tee -a "$out/summary.txt"
tail -n 75 "$out/r/ff-right.txt" >> "$out/summary.txt"
timeout 300 python3 bench/torch_einsum.py --layout both --json "$out/r/torch.json" > "$out/r/torch.txt" 2>&1
echo "torch einsum rc=$?" | tee -a "$out/summary.txt"
