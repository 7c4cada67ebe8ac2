#!/usr/bin/env bash
# Session 32, run 4 (H100), the final code: the LayoutRight suite beside cuBLAS, torch.einsum in both
# layouts, and the FieldField tables of both layouts (the LayoutLeft suite: run 2's JSON, carried
# in docs/).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
timeout 300 "$G" bench contract --backend cuda --kernel all \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout right \
  --json "$out/ff-right.json" > "$out/r/ff-right.txt" 2>&1
echo "bench contract layout right rc=$?" >> "$out/summary.txt"
tail -n 75 "$out/r/ff-right.txt" >> "$out/summary.txt"
timeout 240 python3 bench/torch_einsum.py --layout both --json "$out/torch.json" > "$out/r/torch.txt" 2>&1
echo "torch einsum rc=$?" >> "$out/summary.txt"
python3 scripts/contract-table.py "$out/ff-right.json" "$out/torch.json" --kernels FieldField >> "$out/summary.txt" 2>&1
python3 scripts/contract-table.py docs/bench-contract-h100-s32-left.json "$out/torch.json" --kernels FieldField >> "$out/summary.txt" 2>&1
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
