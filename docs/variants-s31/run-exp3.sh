#!/usr/bin/env bash
# Session 31, run 3 (H100): configuration 18 (two MMA steps a stage, 3 stages, results in 8
# passes of 4 rows) against 15 (4 stages of one step, 4 passes of 8 rows: the default for packed
# double cells of 33-64 fields) and the copied kernel (1), on LayoutLeft FieldField Q2-Q4 beside
# cuBLAS on LayoutRight copies; float: 18 against 7. Two rounds. First the ContractMma tests
# (every configuration) and racecheck over the double every-shape test.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >> "$out/summary.txt"
.device-carry/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' > "$out/r/mma-tests.log" 2>&1
echo "TEST ContractMma rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/mma-tests.log" | tr '\n' ' ')" >> "$out/summary.txt"
timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_filter='ContractMma.EveryBlockShapeDouble' > "$out/r/racecheck.log" 2>&1
echo "SANITIZER racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$out/r/racecheck.log" | tail -1)" >> "$out/summary.txt"
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
  for v in 1 15 18; do run s$v-d-$round double mma GRAIN_MMA_SHAPE=$v; done
done
for round in 1 2; do
  run cublas-f-$round float cublas-strided-batched
  for v in 7 18; do run s$v-f-$round float mma GRAIN_MMA_SHAPE=$v; done
  run auto-f-$round float mma
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
