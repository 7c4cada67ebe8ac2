#!/usr/bin/env bash
# Session 10, run 1: (a) team-small-k's LayoutLeft form with NR right rows per thread, U steps of K
# loaded ahead and S slices (GRAIN_TSK_LEFT="NR U S") against flat on the LayoutLeft Data
# kernels; (b) packed float mma with 8 cells x 64 x 32 tiles (GRAIN_MMA_SHAPE=8) against the
# default (7) on the FieldField cases it applies to.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
G=.device-carry/grain
for v in "4 4 8" "2 4 8" "1 8 8"; do GRAIN_TSK_LEFT="$v" GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | tail -3; done
GRAIN_MMA_SHAPE=8 GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | tail -3
for v in "1 2 8" "1 8 8" "4 2 8" "4 4 8" "2 4 8" "4 4 16"; do
  tag=$(echo $v | tr ' ' '-')
  GRAIN_TSK_LEFT="$v" "$G" bench contract --backend cuda --layout left \
    --kernel DataFieldScalar,DataFieldVector,DataFieldTensor,DataDataTensor \
    --algorithm flat,team-small-k --json $o/data-left-$tag.json > $o/data-left-$tag.txt 2>&1
  echo "$v rc=$?"
done
for s in 7 8 7 8; do
  GRAIN_MMA_SHAPE=$s "$G" bench contract --backend cuda --layout left \
    --kernel FieldFieldScalar,FieldFieldTensor --case Q2,Q3,Q4 --dtype float --algorithm mma \
    --json $o/ff-mma-$s-$RANDOM.json > /dev/null 2>&1
  echo "mma $s rc=$?"
done
python3 - "$o" <<'PY'
import json, sys, glob, os
o = sys.argv[1]
rows = {}
for f in sorted(glob.glob(o + '/data-left-*.json')):
    tag = os.path.basename(f)[10:-5]
    for r in json.load(open(f))['rows']:
        a = r['algorithm'] if r['algorithm'] != 'team-small-k' else 'tsk' + tag
        if r['algorithm'] == 'flat' and tag != '1-2-8': a = 'flat' + tag[-2:]
        rows.setdefault((r['kernel'], r['case'], r['dtype']), {})[a] = (r['roofline'], r['verified'])
for k, v in rows.items():
    print(' '.join(k), ' '.join(f"{a}={x:.2f}{'' if ok else '!U'}" for a, (x, ok) in v.items()))
for f in sorted(glob.glob(o + '/ff-mma-*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}{'' if r['verified'] else '!U'}" for r in d['rows'] if r['algorithm'] == 'mma'))
PY
