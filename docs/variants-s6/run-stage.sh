#!/usr/bin/env bash
# Session 6: stage against flat and team-small-k in LayoutRight (every kernel, Q1-Q4), and the contract tests.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
$C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*:*/cuda.*' > $o/contract-tests.txt 2>&1
echo "contract tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure" $o/contract-tests.txt | head
$G bench contract --backend cuda --layout right --kernel all --algorithm flat,team-small-k,stage,block,blas \
  --reps 10 --json $o/stage-right.json > $o/stage-right.txt 2>&1
echo "bench rc=$?"
python3 - $o/stage-right.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = {}
for r in d['rows']: t.setdefault((r['kernel'], r['case'], r['dtype']), {})[r['algorithm']] = r['roofline']
for k, v in sorted(t.items()):
    print('%-17s %s %-6s ' % k + ' '.join('%s %.2f' % (a, x) for a, x in sorted(v.items())))
PY
