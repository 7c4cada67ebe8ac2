#!/usr/bin/env bash
# Session 29, run 6 (H100), the final code (mma's double rows kernel): both contraction suites beside cuBLAS (every kernel,
# case and element type; Auto's candidates), the FieldField tables with session 27's torch.einsum
# file (torch's side did not change).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
for layout in left right; do
  timeout 280 "$G" bench contract --backend cuda --kernel all \
    --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout $layout \
    --json "$out/r/ff-$layout.json" > "$out/r/ff-$layout.txt" 2>&1
  echo "bench contract layout $layout rc=$?" | tee -a "$out/summary.txt"
  tail -n 75 "$out/r/ff-$layout.txt" >> "$out/summary.txt"
  python3 scripts/contract-table.py "$out/r/ff-$layout.json" docs/variants-s27/run6-torch.json --kernels FieldField >> "$out/summary.txt" 2>&1
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
