#!/usr/bin/env bash
# Session 7, run 10: team-small-k's staged-rows form for unpacked unit-stride K (GRAIN_TSK_ROWS=1)
# on the LayoutRight Data kernels, against its lanes form and flat; the CUDA contract tests with it.
set -u
G=.exp/acc/grain; o=${OUT:-/tmp/out}; mkdir -p $o
GRAIN_TSK_ROWS=1 .exp/t/grain_contract_tests --gtest_brief=1 --gtest_filter='*/cuda.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure" | head -5
for v in 0 1; do
  GRAIN_TSK_ROWS=$v $G bench contract --backend cuda --layout right --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat,team-small-k --json $o/rows$v.json > $o/rows$v.txt 2>&1
  echo "rows $v rc=$?"
done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
t = {}
for v in '01':
    for r in json.load(open(f'{o}/rows{v}.json'))['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype']), {})[r['algorithm'] + v] = (r['roofline'], r['verified'])
tags = ['flat0', 'team-small-k0', 'team-small-k1', 'flat1']
print('%-16s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%14s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-16s %-3s %-6s ' % k + ' '.join('%14.3f' % v[x][0] if x in v else '%14s' % '-' for x in tags), '' if all(x[1] for x in v.values()) else 'UNVERIFIED')
PY
