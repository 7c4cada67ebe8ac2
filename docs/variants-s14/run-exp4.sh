#!/usr/bin/env bash
# Session 14, run 4: TMA multicast in clusters (GRAIN_WGMMA_MC=1: a cell group's 2 x 2 / 2 x 1
# tiles as one cluster, each box copied once into the blocks that share it) against one copy per
# block. The mma tests with it (every shape: 70 x 45, a 2 x 1 cluster; accuracy: 125 x 125, 2 x 2),
# memcheck and racecheck; FieldFieldTensor Q4 float at four budgets, two rounds; the three TMA
# suite cases at 512 MiB.
set -u
out=${OUT:-exp4}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
GRAIN_WGMMA_MC=1 GRAIN_TEST_SMALL=1 timeout 120 $C/tests/grain_contract_tests --gtest_filter='*Mma*' > "$out/r/tests-mma.txt" 2>&1
echo "mma tests (MC) rc=$?"; grep -E "FAILED|PASSED|Failure|expected|shape" "$out/r/tests-mma.txt" | head -30
GRAIN_WGMMA_MC=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*FloatMatches*:*Mma*EveryBlockShapeFloat*' > "$out/r/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' "$out/r/memcheck.txt")"
GRAIN_WGMMA_MC=1 GRAIN_MMA_SHAPE=9 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/racecheck.txt" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$out/r/racecheck.txt" | head -3)"
for round in 1 2; do
  for b in 256 384 512 768; do
    for mc in 0 1; do
      GRAIN_WGMMA_MC=$mc timeout 60 "$G" bench contract --backend cuda --layout left --kernel FieldFieldTensor --case Q4 --dtype float \
        --algorithm mma --budget-mib $b --json "$out/r/b$b-mc$mc-r$round.json" > "$out/r/b$b-mc$mc-r$round.txt" 2>&1
      echo "budget $b mc $mc round $round rc=$?"
    done
  done
done
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    b, mc, _ = os.path.basename(f)[:-5].split('-')
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], int(b[1:]), r['C'])][mc].append((r['ms'], r['verified']))
for k in sorted(t):
    v = t[k]
    print(*k, ' '.join(f"{l}=" + '/'.join(f'{x:.3f}{"" if ok else "!U"}' for x, ok in v[l]) for l in sorted(v)),
          f"mc/one={min(x for x,_ in v['mc1'])/min(x for x,_ in v['mc0']):.3f}" if 'mc1' in v and 'mc0' in v else '')
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
