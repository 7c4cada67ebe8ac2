#!/usr/bin/env bash
# Session 8, run 3: mma's result stores, 16 bytes (V neighbouring cells) per store where the output
# allows (.exp/vs, new) against one element per store (.device-carry, old); mma shapes 1 and 3;
# two alternating rounds; the mma tests of the new build.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.exp/vs/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure|expected" | head -8
for round in a b; do for b in old new; do for sh in 1 3; do
  case $b in old) G=.device-carry/grain ;; new) G=.exp/vs/grain ;; esac
  GRAIN_MMA_SHAPE=$sh $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/$b$sh$round.json > /dev/null 2>&1
done; done; done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
t = {}
for b in ('old', 'new'):
    for sh in '13':
        for rd in 'ab':
            for r in json.load(open(f'{o}/{b}{sh}{rd}.json'))['rows']:
                d = t.setdefault((r['kernel'], r['case'], r['dtype']), {'C': r['C']})
                d[b + sh] = min(d.get(b + sh, 1e9), r['ms'])
cols = ['old1', 'new1', 'old3', 'new3']
print('%-17s %-3s %-6s %6s ' % ('kernel', 'case', 'dtype', 'C') + ' '.join('%7s' % c for c in cols) + '  new1/old1 best-new/old1')
for k, v in sorted(t.items()):
    print('%-17s %-3s %-6s %6d ' % (k + (v['C'],)) + ' '.join('%7.3f' % v[c] for c in cols) +
          '   %.3f   %.3f' % (v['new1'] / v['old1'], min(v['new1'], v['new3']) / v['old1']))
PY
