#!/usr/bin/env bash
# Session 12, run 12: the final code (float `flat` keeps 8 partial sums from K = 128 at any output
# count): the contract suite on the GPU, then the LayoutLeft Data kernels with Auto's candidates,
# two rounds.
set -u
out=${OUT:-exp12}
mkdir -p "$out/r"
G=.device-carry/grain
.device-carry/tests/grain_contract_tests --gtest_brief=1 > "$out/r/contract-tests.log" 2>&1
echo "contract tests rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract-tests.log" | tr '\n' ' ')"
for round in 1 2; do
  "$G" bench contract --backend cuda --layout left \
    --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat,block,team-small-k,team-stride --json "$out/r/data-left-r$round.json" > "$out/r/data-left-r$round.txt" 2>&1
  echo "data left round $round rc=$?"
done
python3 - "$out/r" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + '/data-left-*.json')):
    d = json.load(open(f))
    sel = [r for r in d['rows'] if r['selected']]
    below = [(r['kernel'], r['case'], r['dtype'], r['algorithm'], round(r['roofline'], 3)) for r in sel if r['roofline'] < 0.85]
    print(os.path.basename(f), 'copy %.0f' % d['copy_GBps'], '>= 0.85: %d of %d' % (len(sel) - len(below), len(sel)), below)
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
