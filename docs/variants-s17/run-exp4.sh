#!/usr/bin/env bash
# Session 17, run 4: the staged cells' four-fields path with its rotation search memoized (run 1
# timed a 0.25 ms host search into every launch): LayoutRight FieldField Q1, GRAIN_TSK_QUADS=0 / 1,
# three alternating rounds; the contract tests and memcheck / racecheck over the changed paths.
set -u
out=${OUT:-exp4}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_brief=1 > $out/r/contract-tests.log 2>&1
echo "contract tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $out/r/contract-tests.log | tr '\n' ' ')"
$C/tests/grain_contract_tuning_tests --gtest_brief=1 > $out/r/tuning-tests.log 2>&1
echo "tuning tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $out/r/tuning-tests.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter='*StagedCell*cuda*:*KSlices*cuda*:*DataFieldEvery*cuda*' > $out/r/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $out/r/$tool.log | tail -1)"
done
for round in 1 2 3; do
  for q in 0 1; do
    GRAIN_TSK_QUADS=$q timeout 120 $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q1 --algorithm team-small-k --layout right --json $out/r/a-q$q-r$round.json > $out/r/a-q$q-r$round.txt 2>&1
    echo "quads=$q round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/a-*.json')):
    q = f.split('/a-')[1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['dtype'], q)].append('%.4f/%.3f' % (r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
