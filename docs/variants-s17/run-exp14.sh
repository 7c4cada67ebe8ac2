#!/usr/bin/env bash
# Session 17, run 14: the staged cells before (grain-old: two copies of the carried indices; 72 /
# 61 registers in float / double) and after the review refactor (grain: one CarriedIndex; 54 / 69
# registers), LayoutRight FieldField Q1, team-small-k, three alternating rounds.
set -u
out=${OUT:-exp14}
mkdir -p "$out/r"
C=.device-carry
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2 3; do
  for v in grain-old grain; do
    timeout 120 $C/$v bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q1 \
      --algorithm team-small-k --layout right --json $out/r/$v-r$round.json > $out/r/$v-r$round.txt 2>&1
    echo "$v round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    v = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['dtype'], v)].append('%.4f/%.3f' % (r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
