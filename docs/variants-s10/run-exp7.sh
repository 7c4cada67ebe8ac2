#!/usr/bin/env bash
# Session 10, run 7: `flat` in LayoutLeft with V neighbouring cells per thread and load
# (ContractFlatCellPackKernel; GRAIN_FLAT_PACK="1 A": on, A steps of K ahead; "0 2": off) on
# the LayoutLeft Data kernels; the contract tests with it on.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
for v in "1 2" "1 4" "1 8"; do GRAIN_FLAT_PACK="$v" GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | tail -2; done
for round in 1 2; do for v in "0 2" "1 2" "1 4" "1 8"; do
  tag=$(echo $v | tr ' ' '-')
  GRAIN_FLAT_PACK="$v" $G bench contract --backend cuda --layout left \
    --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat --json $o/r/d-$tag-$round.json > /dev/null 2>&1; echo "$v rc=$?"
done; done
python3 - "$o" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/r/d-*.json')):
    tag = os.path.basename(f)[2:-5]
    for r in json.load(open(f))['rows']:
        if r['algorithm'] == 'flat':
            rows.setdefault((r['kernel'], r['case'], r['dtype'], r['C']), {})[tag] = (r['roofline'], r['verified'])
for k, v in rows.items():
    print(' '.join(map(str, k)), ' '.join(f"{t}={x:.2f}{'' if ok else '!U'}" for t, (x, ok) in sorted(v.items())))
PY
tar czf $o/run7.tar.gz -C $o r && rm -rf $o/r
