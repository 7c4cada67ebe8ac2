#!/usr/bin/env bash
# Session 9, run 14 (code: docs/variants-s9/run14-left-chunks.diff.txt, reverted): team-small-k's LayoutLeft Data form with K in chunks staged by cp.async
# (32 cells x 2 fields per team) against flat on the LayoutLeft Data kernels.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | grep -E "Failure|FAILED|PASSED|: out" | head -20
G=.device-carry/grain
"$G" bench contract --backend cuda --layout left --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --algorithm flat,block,team-small-k --json $o/data-left.json > $o/data-left.txt 2>&1
echo "rc=$?"
python3 - "$o" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + '/data-left.json'))
rows = {}
for r in d['rows']:
    rows.setdefault((r['kernel'], r['case'], r['dtype']), {})[r['algorithm']] = r
for k, v in rows.items():
    print(' '.join(k), ' '.join(f"{a}={r['roofline']:.2f}{'*' if r.get('selected') else ''}{'' if r.get('verified') else '!U'}" for a, r in v.items()))
PY
