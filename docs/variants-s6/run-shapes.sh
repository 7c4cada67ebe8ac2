#!/usr/bin/env bash
# Session 6, run 1: MMA shape rates, mma correctness in every block configuration, and the
# FieldField Q2-Q4 timings of each configuration beside cuBLAS.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
[ -n "${RATE:-}" ] && .exp/mmarate | tee $o/mmarate.txt
[ "${TESTS:-1}" = 1 ] && $C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*:*/cuda.*' > $o/contract-tests.txt 2>&1
echo "contract tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED|Failure|mma shape" $o/contract-tests.txt | head -30
for sh in ${SHAPES:-1 3 4 5 6}; do
  GRAIN_MMA_SHAPE=$sh $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/shape$sh.json > $o/shape$sh.txt 2>&1
  echo "shape $sh rc=$?"
done
$G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm cublas-strided-batched --no-verify --reps 10 --json $o/cublas.json > $o/cublas.txt 2>&1
echo "cublas rc=$?"
python3 - "$o" <<'PY'
import json, sys, glob, os
o = sys.argv[1]
t = {}
for f in sorted(glob.glob(o + '/shape*.json')) + [o + '/cublas.json']:
    if not os.path.exists(f): continue
    d = json.load(open(f)); tag = os.path.basename(f)[:-5]
    for r in d['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = r['ms']
tags = sorted(set(x for v in t.values() for x in v))
print('%-18s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%8s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-18s %-3s %-6s ' % k + ' '.join('%8.3f' % v[x] if x in v else '%8s' % '-' for x in tags))
PY
