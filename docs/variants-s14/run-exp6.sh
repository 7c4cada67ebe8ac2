#!/usr/bin/env bash
# Session 14, run 6: (a) TMA multicast in 1 x 2 clusters (GRAIN_WGMMA_MC=2: the two column tiles
# of a tile row share the left box) against none and 2 x 2 (=1), FieldFieldTensor Q4 float at
# four budgets; (b) what odd C costs: FieldFieldScalar Q4 float at 512 MiB (C = 4971) against 515
# (C = 5000, packed: TMA), FieldFieldVector Q4 float at 512 (1657) against 513 (1660), with and
# without multicast. The mma tests and memcheck with 1 x 2 clusters first. Two rounds.
set -u
out=${OUT:-exp6}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
GRAIN_WGMMA_MC=2 GRAIN_TEST_SMALL=1 timeout 120 $C/tests/grain_contract_tests --gtest_filter='*Mma*' > "$out/r/tests.txt" 2>&1
echo "mma tests (MC=2) rc=$?"; grep -E "FAILED|PASSED|Failure|expected" "$out/r/tests.txt" | head -20
GRAIN_WGMMA_MC=2 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*FloatMatches*' > "$out/r/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' "$out/r/memcheck.txt")"
run() {  # tag mc kernel budget
  GRAIN_WGMMA_MC=$2 timeout 60 "$G" bench contract --backend cuda --layout left --kernel $3 --case Q4 --dtype float \
    --algorithm mma --budget-mib $4 --json "$out/r/$1.json" > "$out/r/$1.txt" 2>&1
  echo "$1 rc=$?"
}
for round in 1 2; do
  for b in 256 384 512 768; do
    for mc in 0 2; do run fft-b$b-mc$mc-r$round $mc FieldFieldTensor $b; done
  done
  for mc in 0 1 2; do
    run ffs-b512-mc$mc-r$round $mc FieldFieldScalar 512
    run ffs-b515-mc$mc-r$round $mc FieldFieldScalar 515
    run ffv-b512-mc$mc-r$round $mc FieldFieldVector 512
    run ffv-b513-mc$mc-r$round $mc FieldFieldVector 513
  done
done
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    name, b, mc, _ = os.path.basename(f)[:-5].split('-')
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], b, r['C'])][mc].append(f"{r['ms']:.3f}" + ('' if r['verified'] else '!U'))
for k in sorted(t):
    print(*k, ' '.join(f"{m}=" + '/'.join(v) for m, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
