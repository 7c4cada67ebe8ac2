#!/usr/bin/env bash
# Session 10, run 9: team-small-k's LayoutLeft form with packed cells (ContractTeamSmallKCellPacksKernel;
# GRAIN_TSK_PACK=S slices, 0 = the unpacked form) against flat (packed where flat_cell_pack
# allows) on the LayoutLeft Data kernels Q3-Q4, two rounds.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
for S in 2 4 8; do GRAIN_TSK_PACK=$S GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | tail -1; done
for round in 1 2; do for S in 0 2 4 8 16; do
  GRAIN_TSK_PACK=$S $G bench contract --backend cuda --layout left --case Q3,Q4 \
    --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat,team-small-k --json $o/r/d-$S-$round.json > /dev/null 2>&1; echo "$S rc=$?"
done; done
python3 - "$o" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/r/d-*.json')):
    tag = os.path.basename(f)[2:-5]
    for r in json.load(open(f))['rows']:
        a = 'flat' if r['algorithm'] == 'flat' else 'tsk' + tag
        if a == 'flat': a += tag[-2:]
        rows.setdefault((r['kernel'], r['case'], r['dtype'], r['C']), {})[a] = (r['roofline'], r['verified'])
for k, v in rows.items():
    print(' '.join(map(str, k)), ' '.join(f"{t}={x:.2f}{'' if ok else '!U'}" for t, (x, ok) in sorted(v.items())))
PY
tar czf $o/run9.tar.gz -C $o r && rm -rf $o/r
