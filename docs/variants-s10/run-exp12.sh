#!/usr/bin/env bash
# Session 10, run 12: the CPU's LayoutRight `flat` rows in chunks (no division per row: grain)
# against one row per iteration (grain-old), 2 OpenMP threads of the GPU machine's CPU, portable
# (SSE2) builds, Q1-Q2, two interleaved rounds.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='*serial*:*openmp*' 2>&1 | tail -2
for round in 1 2; do for b in grain-old grain; do
  OMP_NUM_THREADS=2 OMP_PROC_BIND=true timeout 250 .device-carry/$b bench contract --backend openmp --layout right \
    --case Q1,Q2 --algorithm flat --json $o/r/cpu-$b-$round.json > /dev/null 2>&1; echo "$b rc=$?"
done; done
python3 - "$o" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/r/cpu-*.json')):
    tag = os.path.basename(f)[4:-5]
    d = json.load(open(f))
    for r in d['rows']:
        if r['algorithm'] == 'flat':
            rows.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = (r['roofline'], r['verified'])
    print(tag, 'copy', d['copy_GBps'])
for k, v in rows.items():
    print(' '.join(k), ' '.join(f"{t}={x:.2f}{'' if ok else '!U'}" for t, (x, ok) in sorted(v.items())))
PY
tar czf $o/run12.tar.gz -C $o r && rm -rf $o/r
