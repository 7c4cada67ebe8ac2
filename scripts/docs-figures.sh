#!/usr/bin/env bash
# Redraws every PNG under docs/figures/ from the result files in bench/results/ (needs python3 with
# matplotlib; bench/plot.py draws each). For the GPU (the H200's files, else the H100's) and the
# CPU: time per algorithm per case of three kernels in double, in the device's default layout
# (LayoutLeft on the GPU, LayoutRight on the CPU), and the speedup over serial of the best
# algorithm for FieldFieldScalar across P and the memory budget; then the paper's two figures for
# each device with a paper.json. PYTHON names the interpreter (default python3).
#   usage: scripts/docs-figures.sh [OUT_DIR]   (default docs/figures)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/figures}
mkdir -p "$out"
rm -f "$out"/*.png
plot() { "${PYTHON:-python3}" bench/plot.py "$@" > /dev/null; }

contract_set() {  # device folder, figure prefix, layout, device name for the titles
  local dir=bench/results/$1 prefix=$2 k
  for k in FieldFieldScalar DataFieldScalar DataDataScalar; do
    plot lines "$dir/contract-$3.json" --kernel $k --dtype double --x case \
      --out "$out/${prefix}_${k}_double_time.png" --title "$k, double, Layout${3^}, $4: time per algorithm"
  done
  plot heatmap "$dir/contract-sweep.json" --kernel FieldFieldScalar --dtype double --x P --y budget_MiB \
    --speedup-over serial --of best --out "$out/${prefix}_FieldFieldScalar_double_speedup_best.png"
}

gpu=h200
[ -f bench/results/h200/contract-sweep.json ] || gpu=h100
contract_set $gpu contract_$gpu left "${gpu^^}"
contract_set cpu-2core contract_cpu2 right "2-core CPU"
for dev in h200 cpu-2core; do
  [ -f bench/results/$dev/paper.json ] && plot paper bench/results/$dev/paper.json --out-dir "$out" --prefix paper_${dev%%-*}
done
# GCP-SGD's estimated loss against time, Poisson against Gaussian on a skewed count tensor.
[ -f bench/results/h200/gcp-skewed-poisson.json ] && plot gcp bench/results/h200/gcp-skewed-poisson.json \
  bench/results/h200/gcp-skewed-gaussian.json --out "$out/gcp_h200_skewed_loss.png" \
  --title "GCP-SGD, skewed count tensor (8.7M nonzeros), R = 16, H200"
echo "docs-figures: $(ls "$out"/*.png | wc -l) PNG files in $out"
