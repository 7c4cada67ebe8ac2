#!/usr/bin/env bash
# Session 12, run 1: split-K `mma` (GRAIN_MMA_SPLITS = S forces S ranges of K per cell group and
# tile, partial results summed by a second kernel) on the LayoutLeft FieldField Q3 / Q4 cases,
# both element types: Auto's default choice (with cuBLAS beside it) and S = 1..4 forced; in
# double also the packed configuration (GRAIN_MMA_SHAPE=5) with S = 1..4. Two rounds,
# alternating. First the contraction test suite on the GPU (the split paths' correctness).
set -u
out=${OUT:-exp1}
mkdir -p "$out/r"
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$out/summary.txt"
GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 > "$out/r/contract-tests.log" 2>&1
echo "contract tests rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract-tests.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
grep -E '^\[  FAILED  \]|worst error' "$out/r/contract-tests.log" | head -20 | tee -a "$out/summary.txt"
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
run() {  # tag, dtype, algorithms (environment set by the caller)
  "$G" bench contract --backend cuda --kernel $K --case Q3,Q4 --dtype "$2" --algorithm "$3" \
    --json "$out/r/$1.json" > "$out/r/$1.txt" 2>&1
  echo "$1 rc=$?" | tee -a "$out/summary.txt"
}
for round in 1 2; do
  unset GRAIN_MMA_SPLITS GRAIN_MMA_SHAPE
  run auto-r$round all mma,cublas-strided-batched
  for s in 1 2 3 4; do
    export GRAIN_MMA_SPLITS=$s
    run s$s-r$round all mma
    GRAIN_MMA_SHAPE=5 run p5-s$s-r$round double mma
  done
done
unset GRAIN_MMA_SPLITS GRAIN_MMA_SHAPE
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = os.path.basename(f)[:-5]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'], r['C'])][tag + ':' + r['algorithm'][:5]] = r['ms']
for k in sorted(t):
    print(*k, ' '.join(f'{a}={v:.3f}' for a, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
