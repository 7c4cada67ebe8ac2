#!/usr/bin/env bash
# Session 17, run 13: after the review refactor (the staged cells' loops advance their indices
# through one CarriedIndex instead of two copies of the carries): the contract tests, memcheck and
# racecheck over the staged cells, and LayoutRight FieldField Q1 (team-small-k), three rounds, to
# compare with runs 4 and 11.
set -u
out=${OUT:-exp13}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_brief=1 > $out/r/contract-tests.log 2>&1
echo "contract tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $out/r/contract-tests.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter='*StagedCell*cuda*:*FieldFieldEvery*cuda*' > $out/r/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $out/r/$tool.log | tail -1)"
done
for round in 1 2 3; do
  timeout 120 $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q1 \
    --algorithm team-small-k --layout right --json $out/r/ff-r$round.json > $out/r/ff-r$round.txt 2>&1
  echo "round $round rc=$?"
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/ff-*.json')):
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['dtype'])].append('%.4f/%.3f' % (r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
