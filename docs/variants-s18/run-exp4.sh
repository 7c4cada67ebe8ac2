#!/usr/bin/env bash
# Session 18, run 4: the kept rule (shifted packs for odd C with K <= 72 over 2^18 threads). GPU
# tests (contract, tuning, core) with memcheck / racecheck over the contract suite, then three
# alternating rounds of the LayoutLeft float DataData cases (flat): the run-2 binary with the
# shifted packs off (grain-knob, GRAIN_FLAT_SHIFT=0: before) against the final binary.
set -u
out=${OUT:-exp4}
mkdir -p "$out/r"
C=.device-carry
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
for t in contract tuning core; do
  GRAIN_TEST_SMALL=1 timeout 200 $C/tests/grain_${t}_tests --gtest_brief=1 > "$out/r/$t.log" 2>&1
  echo "TEST $t rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/$t.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
  grep -E '^\[  FAILED  \]' "$out/r/$t.log" | head | tee -a "$out/summary.txt"
done
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 170 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter='*cuda*:*Cuda*' > "$out/r/$tool.log" 2>&1
  echo "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool.log" | tail -1)" | tee -a "$out/summary.txt"
done
for round in 1 2 3; do
  for b in before after; do
    G=$C/grain; [ $b = before ] && G=$C/grain-knob
    GRAIN_FLAT_SHIFT=0 timeout 100 $G bench contract --backend cuda --kernel DataDataScalar,DataDataVector,DataDataTensor \
      --dtype float --algorithm flat --layout left --json "$out/r/$b-r$round.json" > "$out/r/$b-r$round.txt" 2>&1
    echo "$b round $round rc=$?" | tee -a "$out/summary.txt"
  done
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*-r*.json')):
    b = f.split('/')[-1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['C'] % 4, b)].append((r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join('%.4f/%.3f' % x for x in t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
