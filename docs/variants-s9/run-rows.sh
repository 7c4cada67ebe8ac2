#!/usr/bin/env bash
# Session 9, runs 1 and 4 (run 1 on a build whose kernel called a host function and stored nothing;
# run 4 after the fix): team-small-k staged rows with G lanes per row (any row up to 4 KiB) on the
# LayoutRight Data kernels. Variants through the temporary XEXPERIMENT environment knobs:
# lanes per row, scratch per team, and staging forced where rows are 16-byte packable.
set -u
.device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | grep -E "Failure|FAILED|PASSED|out at|: out" | head -20
o=${OUT:-/tmp/out}; mkdir -p $o
G=.device-carry/grain
D=DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor
b() { "$G" bench contract --backend cuda --layout right --kernel $D "$@" 2>&1; }
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
b --case Q2 --algorithm flat,team-small-k --json $o/q2-default.json > $o/q2-default.txt; echo "q2 default rc=$?"
GRAIN_XROWS_FORCE=1 b --case Q1,Q3 --algorithm flat,team-small-k --json $o/q13-force.json > $o/q13-force.txt; echo "q13 force rc=$?"
b --case Q1,Q3 --algorithm team-small-k --json $o/q13-lanes.json > $o/q13-lanes.txt; echo "q13 lanes rc=$?"
for g in 1 2 4 8 16 32; do
  GRAIN_XROWS_LANES=$g b --case Q2 --algorithm team-small-k --json $o/q2-g$g.json > /dev/null; echo "q2 lanes $g rc=$?"
done
for s in 8192 32768; do
  GRAIN_XROWS_SCRATCH=$s b --case Q2 --algorithm team-small-k --json $o/q2-s$s.json > /dev/null; echo "q2 scratch $s rc=$?"
done
python3 - "$o" <<'PY'
import json, sys, glob, os
o = sys.argv[1]
rows = {}
for f in sorted(glob.glob(o + '/*.json')):
    tag = os.path.basename(f)[:-5]
    for r in json.load(open(f))['rows']:
        key = (r['kernel'], r['case'], r['dtype'])
        rows.setdefault(key, []).append((tag + ':' + r['algorithm'], r['ms'], r['roofline'], r.get('verified')))
for key in sorted(rows):
    print(' '.join(key), ' | '.join(f"{t} {ms:.3f} ({rf:.2f}){'' if v else ' UNVERIFIED'}" for t, ms, rf, v in rows[key]))
PY
