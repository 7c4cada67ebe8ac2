#!/usr/bin/env bash
# Session 10, run 4: mma configurations on the new split (GRAIN_MMA_SHAPE), LayoutLeft FieldField
# Q2-Q4: float 1 / 2 / 3 / 7 (where C is odd or 2 mod 4 only 1-3 apply), double 1 / 3 / 5, two rounds.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
for round in 1 2; do
  for s in 1 2 3 7; do
    GRAIN_MMA_SHAPE=$s $G bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q2,Q3,Q4 --dtype float --algorithm mma --json $o/r/f-$s-$round.json > /dev/null 2>&1; echo "float $s rc=$?"
  done
  for s in 1 3 5; do
    GRAIN_MMA_SHAPE=$s $G bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q2,Q3,Q4 --dtype double --algorithm mma --json $o/r/d-$s-$round.json > /dev/null 2>&1; echo "double $s rc=$?"
  done
done
python3 - "$o" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + '/r/*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}{'' if r['verified'] else '!U'}" for r in d['rows'] if r['algorithm'] == 'mma'))
    print(os.path.basename(f), 'cublas', ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}" for r in d['rows'] if r['algorithm'].startswith('cublas')))
PY
tar czf $o/run4.tar.gz -C $o r && rm -rf $o/r
