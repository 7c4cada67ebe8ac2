#!/usr/bin/env bash
# Session 19, run 5 (asks for the H100): team-small-k's two fields a thread for double DataField
# with K >= 1024 (the working tree's default, against GRAIN_EXP_TSK_V=21 GRAIN_EXP_TSK_S=8, the
# committed form) and the float candidates of runs 3-4 against what Auto runs now, four alternating
# rounds; the contract tests and memcheck over the team-small-k tests.
set -u
out=${OUT:-exp5}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
GRAIN_TEST_SMALL=1 timeout 200 $C/tests/grain_contract_tests --gtest_brief=1 > "$out/r/contract.log" 2>&1
echo "TEST contract rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
grep -E '^\[  FAILED  \]' "$out/r/contract.log" | head | tee -a "$out/summary.txt"
F='Contract_KSlicesLayoutLeft/cuda.*:Contract_DataField*/cuda.*'
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter="$F" > "$out/r/$tool.log" 2>&1
  echo "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool.log" | tail -1)" | tee -a "$out/summary.txt"
done
for round in 1 2 3 4; do
  timeout 60 $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype double --algorithm team-small-k \
    --layout left --json "$out/r/dft4d-new-r$round.json" > /dev/null 2>&1
  GRAIN_EXP_TSK_V=21 GRAIN_EXP_TSK_S=8 timeout 60 $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype double \
    --algorithm team-small-k --layout left --json "$out/r/dft4d-old-r$round.json" > /dev/null 2>&1
  timeout 60 $G bench contract --backend cuda --kernel DataFieldVector,DataFieldTensor --case Q3,Q4 --dtype float --algorithm flat,team-small-k \
    --layout left --json "$out/r/f-base-r$round.json" > /dev/null 2>&1
  for cfg in "24 2" "44 2" "14 4" "42 2" "24 4"; do
    set -- $cfg
    GRAIN_EXP_TSK_V=$1 GRAIN_EXP_TSK_S=$2 timeout 60 $G bench contract --backend cuda --kernel DataFieldVector,DataFieldTensor --case Q3,Q4 \
      --dtype float --algorithm team-small-k --layout left --json "$out/r/f-v$1-s$2-r$round.json" > /dev/null 2>&1
  done
  echo "round $round $(date +%T)" | tee -a "$out/summary.txt"
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections, statistics
d = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(d + '/*-r[0-9].json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'])][cfg + ':' + r['algorithm']].append((r['ms'], r['roofline']))
for k, v in t.items():
    med = {c: statistics.median(x[0] for x in ms) for c, ms in v.items()}
    best = min(med, key=med.get)
    print(' '.join(k), '| best', best, '%.4f' % med[best])
    for c, ms in sorted(v.items()):
        print('   %-28s %s  median %.4f' % (c, ' '.join('%.4f(%.3f)' % x for x in ms), med[c]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
