#!/usr/bin/env bash
# Session 6: LayoutLeft Data kernels with team-small-k's 16-byte cell packs, and the contract tests.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
$C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='*/cuda.*' > $o/contract-tests.txt 2>&1
echo "contract tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure" $o/contract-tests.txt | head -5
$G bench contract --backend cuda --layout left --kernel DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --algorithm flat,team-small-k,block --reps 10 --json $o/data-left.json > $o/data-left.txt 2>&1
echo "bench rc=$?"
python3 - $o/data-left.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = {}
for r in d['rows']: t.setdefault((r['kernel'], r['case'], r['dtype']), {})[r['algorithm']] = (r['roofline'], r['C'], r.get('selected'))
for k, v in sorted(t.items()):
    print('%-16s %s %-6s C=%-8d ' % (k + (list(v.values())[0][1],)) + ' '.join('%s%s %.2f' % ('*' if x[2] else '', a, x[0]) for a, x in sorted(v.items())))
PY
