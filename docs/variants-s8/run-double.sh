#!/usr/bin/env bash
# Session 8, run 9: packed double with 8 cells (64-byte runs, 256 threads, 2 blocks per SM):
# configurations 8 (4 stages of 4), 9 (persistent, 3 stages), 10 (2 stages of 8) against 1 (the
# cp.async default) and 5 (packed, 16 cells), FieldField Q2-Q4 double; two rounds; mma tests.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.exp/pd/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure|expected" | head -8
for rd in a b; do for sh in 1 5 8 9 10; do
  GRAIN_MMA_SHAPE=$sh .exp/pd/grain bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --dtype double --algorithm mma --no-verify --reps 10 --json $o/d$sh$rd.json > /dev/null 2>&1
done; done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
tags = ['d1', 'd5', 'd8', 'd9', 'd10']
t = {}
for tag in tags:
    for rd in 'ab':
        for r in json.load(open(f'{o}/{tag}{rd}.json'))['rows']:
            d = t.setdefault((r['kernel'], r['case'], r['dtype']), {'C': r['C']})
            d[tag] = min(d.get(tag, 1e9), r['ms'])
print('%-17s %-3s %-6s %6s ' % ('kernel', 'case', 'dtype', 'C') + ' '.join('%7s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-17s %-3s %-6s %6d ' % (k + (v['C'],)) + ' '.join('%7.3f' % v[x] for x in tags))
PY
