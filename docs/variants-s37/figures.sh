#!/usr/bin/env bash
# Session 37: the contraction figure sets on the final code (run on the GPU machine, which has
# matplotlib; after scripts/device-stage.sh, carrying .device-carry):
#   OUT=DIR [SWEEP=0] bash docs/variants-s37/figures.sh   (PNGs in DIR/figures.tar.gz)
# GPU: time per algorithm per case from session 37's LayoutLeft suite and torch.einsum (run 1 and
# run 4), the speedup heat maps from a sweep run here. CPU: the same from session 37's LayoutRight
# suite and docs/bench-contract-sweep-cpu2-zen5-s37.json (2 threads, Zen 5 VM).
set -u
out=${OUT:-figures-out}
mkdir -p "$out"
bash scripts/device-unpack.sh > /dev/null 2>&1
# The GPU sweep (run 7; kept as docs/bench-contract-sweep-h100-s37.json); SWEEP=0 plots the kept one.
sweep=docs/bench-contract-sweep-h100-s37.json
if [ "${SWEEP:-1}" != 0 ]; then
  sweep="$out/bench-contract-sweep-h100-s37.json"
  .device-carry/grain bench contract --backend cuda --sweep --json "$sweep" > "$out/sweep-gpu.txt" 2>&1
  echo "sweep rc=$?"
fi
figs() { LOG="$out/plot.txt" bash scripts/contract-figures.sh "$@"; }
figs "$out/figures-h100" contract_h100 "$sweep" \
  docs/bench-contract-h100-s37-left.json docs/bench-torch-einsum-h100-s37.json
figs "$out/figures-cpu" contract_cpu2 docs/bench-contract-sweep-cpu2-zen5-s37.json docs/bench-contract-cpu2-zen5-s37-right.json
# One archive: the device tool brings back a limited number of files.
tar czf "$out/figures.tar.gz" -C "$out" figures-h100 figures-cpu && rm -rf "$out/figures-h100" "$out/figures-cpu"
