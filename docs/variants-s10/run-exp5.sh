#!/usr/bin/env bash
# Session 10, run 5: the packed float mma shapes of run 2 again, on the new 3xTF32 split
# (GRAIN_MMA_SHAPE 7 = default; 8 / 9: 8 cells x 64 x 32 tiles, 2 / 3 stages of 16; 10 / 11: 16
# cells x 32 x 32, 4 / 5 stages of 8; code: run1-2-mma-shapes.diff.txt), two rounds.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma*' 2>&1 | tail -2
for round in 1 2; do for s in 7 8 9 10 11; do
  GRAIN_MMA_SHAPE=$s $G bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldTensor \
    --case Q2,Q3,Q4 --dtype float --algorithm mma --json $o/r/f-$s-$round.json > /dev/null 2>&1; echo "float $s rc=$?"
done; done
python3 - "$o" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + '/r/*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}{'' if r['verified'] else '!U'}" for r in d['rows'] if r['algorithm'] == 'mma'))
PY
tar czf $o/run5.tar.gz -C $o r && rm -rf $o/r
