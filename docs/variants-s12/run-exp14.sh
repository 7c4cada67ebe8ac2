#!/usr/bin/env bash
# Session 12, run 14: the final code (packed double `mma` for one-tile cells with K >= 128): the
# contract suite on the GPU, then LayoutLeft FieldField Q2 double (Auto's `mma` beside cuBLAS),
# three rounds.
set -u
out=${OUT:-exp14}
mkdir -p "$out/r"
G=.device-carry/grain
.device-carry/tests/grain_contract_tests --gtest_brief=1 > "$out/r/contract-tests.log" 2>&1
echo "contract tests rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract-tests.log" | tr '\n' ' ')"
for round in 1 2 3; do
  "$G" bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2 --dtype double --algorithm mma,cublas-strided-batched --json "$out/r/q2-r$round.json" > /dev/null 2>&1
  echo "round $round rc=$?"
done
python3 - "$out/r" <<'PY'
import json, sys, glob, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + '/q2-*.json')):
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'], r['C'])][r['algorithm'][:5] + ('' if r['verified'] else '!U')].append(r['ms'])
for k in sorted(t):
    print(*k, ' '.join(f'{a}=' + '/'.join(f'{x:.3f}' for x in v) for a, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
