#!/usr/bin/env bash
# Session 19, run 3: team-small-k's LayoutLeft K slices with F fields a team (the data row read
# once for F field rows, dot_strided_rows) and A partial sums (experiment knobs GRAIN_EXP_TSK_V =
# 10 A + F, GRAIN_EXP_TSK_S = slices). Part 1: the contract tests' team-small-k and DataField
# cases under each (A, F). Part 2: LayoutLeft DataField Q3 / Q4, two alternating rounds.
set -u
out=${OUT:-exp3}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
F='Contract_KSlicesLayoutLeft/cuda.*:Contract_DataField*/cuda.*'
for v in 42 24 44 82 14 22; do
  for s in 0 1 3; do
    GRAIN_EXP_TSK_V=$v GRAIN_EXP_TSK_S=$s GRAIN_TEST_SMALL=1 timeout 100 $C/tests/grain_contract_tests --gtest_brief=1 \
      --gtest_filter="$F" > "$out/r/test-v$v-s$s.log" 2>&1
    echo "TEST v$v s$s rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/test-v$v-s$s.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
  done
done
GRAIN_EXP_TSK_V=44 GRAIN_TEST_SMALL=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter="$F" > "$out/r/memcheck.log" 2>&1
echo "SANITIZER memcheck v44 rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck.log" | tail -1)" | tee -a "$out/summary.txt"
date +%T | tee -a "$out/summary.txt"
timeout 100 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor --case Q3,Q4 \
  --algorithm flat,team-small-k --layout left --json "$out/r/base.json" > /dev/null 2>&1
for round in 1 2; do
  for cfg in "81 2" "42 2" "42 4" "24 2" "24 4" "44 2" "82 2" "22 4" "14 4" "24 8" "21 8" "22 8" "42 8" "14 8"; do
    set -- $cfg
    GRAIN_EXP_TSK_V=$1 GRAIN_EXP_TSK_S=$2 timeout 100 $G bench contract --backend cuda \
      --kernel DataFieldScalar,DataFieldVector,DataFieldTensor --case Q3,Q4 --algorithm team-small-k --layout left \
      --json "$out/r/v$1-s$2-r$round.json" > /dev/null 2>&1
    echo "bench v$1 s$2 round $round rc=$? $(date +%T)"
  done
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections
d = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for r in json.load(open(d + '/base.json'))['rows']:
    t[(r['kernel'], r['case'], r['dtype'])]['base-' + r['algorithm']].append(r['ms'])
for f in sorted(glob.glob(d + '/v*-r*.json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'])][cfg].append(r['ms'])
for k, v in t.items():
    best = min(v.items(), key=lambda kv: min(kv[1]))
    print(' '.join(k), '| best', best[0], '%.4f' % min(best[1]), '|', ' '.join('%s %s' % (c, '/'.join('%.4f' % x for x in ms)) for c, ms in sorted(v.items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
