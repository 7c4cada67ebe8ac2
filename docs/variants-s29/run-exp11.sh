#!/usr/bin/env bash
# Session 29, run 11 (H100), the final code: the LayoutRight suite again (run 10 had noisy medians on
# unchanged kernels: DataDataTensor Q2 double 0.442 ms, minimum 0.419; run 6 0.400), beside cuBLAS, with the FieldField table
# (torch.einsum: session 27's file).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
for layout in right; do
  timeout 280 "$G" bench contract --backend cuda --kernel all \
    --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout $layout \
    --json "$out/r/ff-$layout.json" > "$out/r/ff-$layout.txt" 2>&1
  echo "bench contract layout $layout rc=$?" | tee -a "$out/summary.txt"
  tail -n 75 "$out/r/ff-$layout.txt" >> "$out/summary.txt"
  python3 scripts/contract-table.py "$out/r/ff-$layout.json" docs/variants-s27/run6-torch.json --kernels FieldField >> "$out/summary.txt" 2>&1
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
