#!/usr/bin/env bash
# Session 19, run 4: team-small-k's field groups with the F = 1 kernels' code restored (run 3's
# F = 1 float kernel took 66 registers instead of 56, so its teams no longer fit the GPU at once).
# Three alternating rounds of the candidates (GRAIN_EXP_TSK_V = 10 A + F, GRAIN_EXP_TSK_S =
# slices; 0 0 = as committed) on the LayoutLeft cases they may take, then `grain tune` over
# LayoutLeft DataField with the double candidate (2 partial sums, 2 fields, 4 slices) and the float
# one (2, 4, 2) standing in for team-small-k.
set -u
out=${OUT:-exp4}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
F='Contract_KSlicesLayoutLeft/cuda.*:Contract_DataField*/cuda.*'
for v in "0 0" "22 4" "24 2"; do
  set -- $v
  GRAIN_EXP_TSK_V=$1 GRAIN_EXP_TSK_S=$2 GRAIN_TEST_SMALL=1 timeout 100 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter="$F" > "$out/r/test-v$1-s$2.log" 2>&1
  echo "TEST v$1 s$2 rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/test-v$1-s$2.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
for round in 1 2 3; do
  timeout 60 $G bench contract --backend cuda --kernel DataFieldVector,DataFieldTensor --case Q3,Q4 \
    --algorithm flat --layout left --json "$out/r/flat-r$round.json" > /dev/null 2>&1
  for cfg in "0 0" "22 4" "42 4" "22 2" "24 4" "24 2" "44 2" "14 4" "42 2" "82 2"; do
    set -- $cfg
    GRAIN_EXP_TSK_V=$1 GRAIN_EXP_TSK_S=$2 timeout 60 $G bench contract --backend cuda \
      --kernel DataFieldVector,DataFieldTensor --case Q3,Q4 --algorithm team-small-k --layout left \
      --json "$out/r/v$1-s$2-r$round.json" > /dev/null 2>&1
  done
  echo "round $round $(date +%T)" | tee -a "$out/summary.txt"
done
GRAIN_EXP_TSK_V=22 GRAIN_EXP_TSK_S=4 timeout 150 $G tune --backend cuda --layout left --kernel DataFieldScalar,DataFieldVector,DataFieldTensor \
  --dtype double --fields 8,27,64,125 --points 64,216,512 --budget-mib 512 --output "$out/r/tune-left-double.txt" > "$out/r/tune-left-double.log" 2>&1
echo "tune double rc=$? $(date +%T)" | tee -a "$out/summary.txt"
GRAIN_EXP_TSK_V=24 GRAIN_EXP_TSK_S=2 timeout 150 $G tune --backend cuda --layout left --kernel DataFieldScalar,DataFieldVector,DataFieldTensor \
  --dtype float --fields 8,27,64,125 --points 64,216,512 --budget-mib 512 --output "$out/r/tune-left-float.txt" > "$out/r/tune-left-float.log" 2>&1
echo "tune float rc=$? $(date +%T)" | tee -a "$out/summary.txt"
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections, statistics
d = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(d + '/*-r[0-9].json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'])][cfg].append(r['ms'])
for k, v in t.items():
    med = {c: statistics.median(ms) for c, ms in v.items()}
    best = min(med, key=med.get)
    print(' '.join(k), '| best', best, '%.4f' % med[best], '|', ' '.join('%s %s' % (c, '/'.join('%.4f' % x for x in ms)) for c, ms in sorted(v.items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
