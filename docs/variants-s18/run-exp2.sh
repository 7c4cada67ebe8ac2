#!/usr/bin/env bash
# Session 18, run 2: flat's shifted packs, both packs always loaded (run 1 loaded the second only where the row was shifted, and the conditional load became a branch) (ContractFlatCellShiftKernel) for LayoutLeft float Data
# cells not packed by 4. The contract tests (and memcheck / racecheck over the flat packed-cells
# test), then every LayoutLeft float Data case, flat and team-small-k, with GRAIN_FLAT_SHIFT = 0
# (off: before), 2 (where no packs apply: C odd) and 1 (also in place of 2-cell packs, C = 2 mod 4),
# three alternating rounds.
set -u
out=${OUT:-exp2}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
GRAIN_TEST_SMALL=1 timeout 200 $C/tests/grain_contract_tests --gtest_brief=1 > "$out/r/contract_tests.log" 2>&1
echo "TEST contract rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract_tests.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
grep -E '^\[  FAILED  \]' "$out/r/contract_tests.log" | head | tee -a "$out/summary.txt"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter='*FlatPacked*cuda*:*FlatPacked*Cuda*' > "$out/r/$tool.log" 2>&1
  echo "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool.log" | tail -1)" | tee -a "$out/summary.txt"
done
for round in 1 2 3; do
  for mode in 0 2 1; do
    GRAIN_FLAT_SHIFT=$mode timeout 150 $G bench contract --backend cuda --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
      --dtype float --algorithm flat --layout left --json "$out/r/m$mode-r$round.json" > "$out/r/m$mode-r$round.txt" 2>&1
    echo "mode $mode round $round rc=$?" | tee -a "$out/summary.txt"
  done
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/m*.json')):
    mode = f.split('/')[-1].split('-r')[0]
    d = json.load(open(f))
    for r in d['rows']:
        t[(r['kernel'], r['case'], r['algorithm'], r['C'] % 4, mode)].append((r['ms'], r['roofline']))
print('kernel case algorithm C%4 mode: ms/roofline per round')
for k in sorted(t):
    print(*k, ' '.join('%.4f/%.3f' % x for x in t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
