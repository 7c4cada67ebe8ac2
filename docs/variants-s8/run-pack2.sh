#!/usr/bin/env bash
# Session 8, run 10: float mma with packs of 2 cells (configuration 8: 8-byte copies, persistent)
# against 1 (cp.async) and 7 (packs of 4), FieldField Q2-Q4 float; two rounds; mma tests.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.exp/v2/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure|expected|mma float" | head -12
for rd in a b; do for sh in 1 7 8; do
  GRAIN_MMA_SHAPE=$sh .exp/v2/grain bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --dtype float --algorithm mma --no-verify --reps 10 --json $o/f$sh$rd.json > /dev/null 2>&1
done; done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
tags = ['f1', 'f7', 'f8']
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
