#!/usr/bin/env bash
# Session 8, run 7: packed mma as a work loop: persistent blocks (configurations 7-9: float KC 8 x 3
# stages, 16 x 2, 8 x 2; double 4 x 2) against the committed packed ones (.device-carry, 5 and 6)
# and the same binary's 5 and 6 (now a one-item loop), on FieldField Q2-Q4; two rounds; mma tests.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.exp/ps/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure|expected" | head -8
run() {  # tag binary shape
  GRAIN_MMA_SHAPE=$3 $2 bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/$1.json > /dev/null 2>&1
}
for rd in a b; do
  run old1$rd .device-carry/grain 1; run old6$rd .device-carry/grain 6
  for sh in 5 6 7 8 9; do run new$sh$rd .exp/ps/grain $sh; done
done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
tags = ['old1', 'old6', 'new5', 'new6', 'new7', 'new8', 'new9']
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
