#!/usr/bin/env bash
# Session 7, run 8: mma shape 1 with cp.async's L2 prefetch set at compile time: none (shape 1),
# .L2::64B (shape 4), .L2::128B (shape 5); two alternating rounds; the mma tests.
set -u
G=.exp/acc/grain; o=${OUT:-/tmp/out}; mkdir -p $o
.exp/t/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure" | head -5
for round in a b; do for sh in 1 4 5; do
  GRAIN_MMA_SHAPE=$sh $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/s$sh$round.json > /dev/null 2>&1
done; done
python3 - "$o" <<'PY'
import json, sys, os
o = sys.argv[1]; tags = ['s1a','s4a','s5a','s1b','s4b','s5b']
t = {}
for tag in tags:
    for r in json.load(open(f'{o}/{tag}.json'))['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = r['ms']
print('%-17s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%7s' % x for x in tags) + '   64/none 128/none')
for k, v in sorted(t.items()):
    n = min(v['s1a'], v['s1b']); a = min(v['s4a'], v['s4b']); b = min(v['s5a'], v['s5b'])
    print('%-17s %-3s %-6s ' % k + ' '.join('%7.3f' % v[x] for x in tags) + '   %.3f   %.3f' % (n / a, n / b))
PY
