#!/usr/bin/env bash
# Session 20, run 3: the two bandwidth-bound cases that run 2's suite left under 0.85 with code
# unchanged since session 19 (LayoutLeft DataDataTensor Q4 float, flat: 0.835 against 0.902 in
# session 19; LayoutRight DataDataTensor Q2 float, team-small-k: 0.829 against 0.901), four rounds.
set -u
out=${OUT:-exp3}
mkdir -p "$out/r"
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
for round in 1 2 3 4; do
  timeout 20 $G bench contract --backend cuda --kernel DataDataTensor --case Q4 --dtype float --algorithm flat,team-small-k \
    --layout left --json "$out/r/left-r$round.json" > /dev/null 2>&1
  timeout 20 $G bench contract --backend cuda --kernel DataDataTensor --case Q2 --dtype float --algorithm flat,team-small-k \
    --layout right --json "$out/r/right-r$round.json" > /dev/null 2>&1
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*-r[0-9].json')):
    d = json.load(open(f))
    for r in d['rows']:
        t[f.split('/')[-1].split('-r')[0] + ':' + r['algorithm'] + (' (Auto)' if r['selected'] else '')].append('%.4f(%.3f; copy %.0f)' % (r['ms'], r['roofline'], d['copy_GBps']))
for c, v in sorted(t.items()): print(c, ' '.join(v))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
