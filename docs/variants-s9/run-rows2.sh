#!/usr/bin/env bash
# Session 9, runs 5-6: staged rows with both runs copied together (run 5: register-staged, 8 packs;
# run 6: cp.async through team_copy_async; the script is the same, the binaries differ) in
# flight on the LayoutRight Data kernels: team threads x scratch per team, and lanes per row,
# through the temporary XEXPERIMENT knobs; Q1/Q3 with staging forced where rows are packable.
set -u
.device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | grep -E "Failure|FAILED|PASSED|: out" | head -20
o=${OUT:-/tmp/out}; mkdir -p $o
G=.device-carry/grain
D=DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor
b() { "$G" bench contract --backend cuda --layout right --kernel $D "$@" 2>&1; }
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
b --case Q2 --algorithm flat,team-small-k --json $o/q2-default.json > $o/q2-default.txt; echo "q2 default rc=$?"
b --case Q1,Q3 --algorithm flat,team-small-k --json $o/q13-lanes.json > /dev/null; echo "q13 lanes rc=$?"
GRAIN_XROWS_FORCE=1 b --case Q1,Q3 --algorithm team-small-k --json $o/q13-force.json > /dev/null; echo "q13 force rc=$?"
for t in 64 128 256; do for s in 8192 16384 24576 32768; do
  GRAIN_XROWS_THREADS=$t GRAIN_XROWS_SCRATCH=$s b --case Q2 --algorithm team-small-k --json $o/q2-t$t-s$s.json > /dev/null
  GRAIN_XROWS_FORCE=1 GRAIN_XROWS_THREADS=$t GRAIN_XROWS_SCRATCH=$s b --case Q1,Q3 --algorithm team-small-k --json $o/q13-t$t-s$s.json > /dev/null
  echo "t $t s $s rc=$?"
done; done
for g in 1 2 4 8 16 32; do
  GRAIN_XROWS_LANES=$g b --case Q2 --algorithm team-small-k --json $o/q2-g$g.json > /dev/null; echo "q2 lanes $g rc=$?"
done
python3 - "$o" <<'PY'
import json, sys, glob, os
o = sys.argv[1]
rows = {}
for f in sorted(glob.glob(o + '/*.json')):
    tag = os.path.basename(f)[:-5]
    for r in json.load(open(f))['rows']:
        key = (r['kernel'], r['case'], r['dtype'])
        rows.setdefault(key, []).append((tag.replace('q2-','').replace('q13-','') + ':' + r['algorithm'].replace('team-small-k','tsk'), r['ms'], r['roofline'], r.get('verified')))
for key in sorted(rows):
    best = max(rows[key], key=lambda x: x[2])
    print(' '.join(key), 'BEST', best[0], f"{best[2]:.2f}", '|', ' '.join(f"{t}={rf:.2f}{'' if v else '!U'}" for t, ms, rf, v in rows[key]))
PY
