#!/usr/bin/env bash
# Session 31, run 5 (H100): the copied kernel (configuration 1: 8 cells, 32 x 32 a warp, 256
# threads, 112 registers, 2 blocks an SM) with launch bounds for 3 (18) and 4 (19) blocks an SM,
# on LayoutLeft FieldField Q2-Q4 beside cuBLAS on LayoutRight copies, both types, two rounds.
# First the ContractMma tests (every configuration).
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
  for dt in double float; do
    run cublas-${dt:0:1}-$round $dt cublas-strided-batched
    for v in 1 18 19; do run s$v-${dt:0:1}-$round $dt mma GRAIN_MMA_SHAPE=$v; done
    run auto-${dt:0:1}-$round $dt mma
  done
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
