#!/usr/bin/env bash
# Session 31, run 1 (H100): the persistent packed kernel with its results in 4 passes of 8 rows
# (GRAIN_MMA_SHAPE 15: 4 stages, 16: 5 stages, 17: two MMA steps a stage) against the copied
# kernel (1), the packed kernel (5) and the old persistent one (7), on the LayoutLeft FieldField
# Q2-Q4 cases whose cells are packed (C even in double, a multiple of 4 in float), beside cuBLAS
# on LayoutRight copies; two rounds. First the ContractMma tests, which run every shape.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >> "$out/summary.txt"
.device-carry/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' > "$out/r/mma-tests.log" 2>&1
echo "TEST ContractMma rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/mma-tests.log" | tr '\n' ' ')" >> "$out/summary.txt"
run() {  # name, dtype, algorithms, env...
  local name=$1 dt=$2 algs=$3; shift 3
  env "$@" timeout 150 "$G" bench contract --backend cuda --layout left --dtype $dt \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm "$algs" \
    --json "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
  echo "$name rc=$?" >> "$out/summary.txt"
  python3 - "$out/r/$name.json" "$name" >> "$out/summary.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    print(f"{sys.argv[2]:12s} {r['kernel']:17s} {r['case']} {r['dtype']:6s} C={r['C']:<7d} {r['algorithm']:24s} {r['ms']:.3f} {r['roofline']:.3f} {'ok' if r['verified'] else 'NOT VERIFIED'}")
PY
}
for round in 1 2; do
  run cublas-d-$round double cublas-strided-batched
  for v in 1 5 7 15 16 17; do run s$v-d-$round double mma GRAIN_MMA_SHAPE=$v; done
  run auto-d-$round double mma
done
for round in 1 2; do
  run cublas-f-$round float cublas-strided-batched
  for v in 7 15 16 17; do run s$v-f-$round float mma GRAIN_MMA_SHAPE=$v; done
  run auto-f-$round float mma
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
