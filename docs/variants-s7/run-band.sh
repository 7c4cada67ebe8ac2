#!/usr/bin/env bash
# Session 7, run 1: mma's block order (bands of cell groups) against cuBLAS, FieldField Q2-Q4.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
$C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' > $o/contract-tests.txt 2>&1
echo "mma tests rc=$?"; grep -E "^\[  (PASSED|FAILED)" $o/contract-tests.txt | head
run() { tag=$1; shift
  env "$@" $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/$tag.json > $o/$tag.txt 2>&1
  echo "$tag rc=$?"; }
run b1 GRAIN_MMA_BAND=1
run bauto GRAIN_MMA_BAND=0
run bhalf GRAIN_MMA_BAND=0 GRAIN_MMA_BAND_SCALE=50
run bdbl GRAIN_MMA_BAND=0 GRAIN_MMA_BAND_SCALE=200
run ball GRAIN_MMA_BAND=100000000
run b1again GRAIN_MMA_BAND=1
$G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm cublas-strided-batched --no-verify --reps 10 --json $o/cublas.json > $o/cublas.txt 2>&1
echo "cublas rc=$?"
python3 - "$o" <<'PY'
import json, sys, glob, os
o = sys.argv[1]
t = {}
tags = ['b1','bauto','bhalf','bdbl','ball','b1again','cublas']
for tag in tags:
    f = o + '/' + tag + '.json'
    if not os.path.exists(f): continue
    d = json.load(open(f))
    for r in d['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = r['ms']
print('%-18s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%8s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-18s %-3s %-6s ' % k + ' '.join('%8.3f' % v[x] if x in v else '%8s' % '-' for x in tags))
PY
