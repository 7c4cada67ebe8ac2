#!/usr/bin/env bash
# Session 29, run 1 (H100): the double rows kernel (mma shapes 12 / 13, LayoutRight) — its tests,
# then LayoutRight FieldField double Q2-Q4 beside cuBLAS under the default and the temporary
# variants (GRAIN_TMP_ROWS 1-5: stage depth / tile shapes; GRAIN_MMA_SPLIT 1 / 2; shapes forced),
# two alternating rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee -a "$out/summary.txt"
timeout 200 "$T/grain_contract_tests" --gtest_filter='ContractMma.*' > "$out/r/tests-mma.txt" 2>&1
echo "ContractMma tests rc=$?" | tee -a "$out/summary.txt"
grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED|Failure" "$out/r/tests-mma.txt" | head -40 >> "$out/summary.txt"
run() {  # name, env..., algorithms
  local name=$1 algs=$2; shift 2
  env "$@" timeout 120 "$G" bench contract --backend cuda --layout right --dtype double \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm "$algs" \
    --json "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
  echo "$name rc=$?" >> "$out/summary.txt"
  python3 - "$out/r/$name.json" "$name" >> "$out/summary.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    print(f"{sys.argv[2]:10s} {r['kernel']:17s} {r['case']} {r['algorithm']:24s} {r['ms']:.3f} {r['roofline']:.3f} {'ok' if r['verified'] else 'NOT VERIFIED'}")
PY
}
for round in 1 2; do
  run base$round mma,blas,cublas-strided-batched
  run split1-$round mma GRAIN_MMA_SPLIT=1
  run split2-$round mma GRAIN_MMA_SPLIT=2
  for v in 1 2 3 4 5; do run tmp$v-$round mma GRAIN_TMP_ROWS=$v; done
  run shape13-$round mma GRAIN_MMA_SHAPE=13
  run shape12-$round mma GRAIN_MMA_SHAPE=12
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
