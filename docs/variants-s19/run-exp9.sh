#!/usr/bin/env bash
# Session 19, run 9: LayoutLeft DataFieldTensor Q4 float (team-small-k, L2 86% busy with a 38% hit
# rate in run 8: each field's team re-reads its cells' data row from L2) with W fields a team, one
# per group of threads, so the team's warps share the data row in L1 (experiment knobs
# GRAIN_EXP_TSK_W = W, or 40 + W for 4 partial sums instead of 8; GRAIN_EXP_TSK_S = slices).
# Four alternating rounds; the contract tests' team-small-k cases under W = 2; Nsight Compute on W = 2.
set -u
out=${OUT:-exp9}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
F='Contract_KSlicesLayoutLeft/cuda.*:Contract_DataField*/cuda.*'
for w in 2 4; do
  GRAIN_EXP_TSK_W=$w GRAIN_TEST_SMALL=1 timeout 100 $C/tests/grain_contract_tests --gtest_brief=1 --gtest_filter="$F" > "$out/r/test-w$w.log" 2>&1
  echo "TEST w$w rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/test-w$w.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
for round in 1 2 3 4; do
  for cfg in "0 0" "2 2" "4 1" "42 2" "44 1" "2 1"; do
    set -- $cfg
    GRAIN_EXP_TSK_W=$1 GRAIN_EXP_TSK_S=$2 timeout 60 $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype float \
      --algorithm team-small-k --layout left --json "$out/r/w$1-s$2-r$round.json" > /dev/null 2>&1
  done
  echo "round $round $(date +%T)" | tee -a "$out/summary.txt"
done
GRAIN_EXP_TSK_W=2 GRAIN_EXP_TSK_S=2 timeout 150 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --kernel-name-base mangled --kernel-name regex:ContractTeamSmallK --launch-skip 2 --launch-count 1 -o "$out/r/w2" \
  $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype float --algorithm team-small-k --layout left > "$out/r/w2.txt" 2>&1
ncu --import "$out/r/w2.ncu-rep" --page details > "$out/r/w2-details.txt" 2>&1
grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit|Registers Per|Waves Per SM|Grid Size|Block Size|Achieved Occupancy" "$out/r/w2-details.txt" | tee -a "$out/summary.txt"
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections, statistics
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/w*-r[0-9].json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[cfg].append((r['ms'], r['roofline']))
for c, v in sorted(t.items()):
    print('%-10s %s  median %.4f' % (c, ' '.join('%.4f(%.3f)' % x for x in v), statistics.median(x[0] for x in v)))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
