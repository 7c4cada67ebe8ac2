#!/usr/bin/env bash
# Session 29, run 9 (H100): the rows kernel made generic over the element type (float: the
# 3xTF32 tile), with a 32 x 32 one-warp configuration (shape 14): the mma tests, then LayoutRight
# FieldField Q2-Q4 in both types under shapes 12 / 13 / 14 beside Auto's pick and cuBLAS, two
# alternating rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
G=.device-carry/grain
timeout 200 "$T/grain_contract_tests" --gtest_filter='ContractMma.*' > "$out/r/tests-mma.txt" 2>&1
echo "ContractMma tests rc=$?" | tee -a "$out/summary.txt"
grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED|Failure|worst error" "$out/r/tests-mma.txt" | head -40 >> "$out/summary.txt"
run() {  # name, algorithms, env...
  local name=$1 algs=$2; shift 2
  env "$@" timeout 150 "$G" bench contract --backend cuda --layout right --dtype all \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm "$algs" \
    --json "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
  echo "$name rc=$?" >> "$out/summary.txt"
  python3 - "$out/r/$name.json" "$name" >> "$out/summary.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    print(f"{sys.argv[2]:10s} {r['kernel']:17s} {r['case']} {r['dtype']:6s} {r['algorithm']:24s} {r['ms']:.3f} {r['roofline']:.3f} {'ok' if r['verified'] else 'NOT VERIFIED'}")
PY
}
for round in 1 2; do
  run auto-$round auto,cublas-strided-batched
  for v in 12 13 14; do run shape$v-$round mma GRAIN_MMA_SHAPE=$v; done
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
