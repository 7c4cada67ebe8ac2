#!/usr/bin/env bash
# Session 17, run 12: the final binaries again on the Data cases that run 11 put within 1.5% below
# 0.85 (LayoutRight DataFieldScalar Q2 float, DataFieldVector Q1 / Q3 float; LayoutLeft
# DataFieldTensor Q4 float / double) and on DataFieldVector Q1 double (LayoutRight), three rounds.
set -u
out=${OUT:-exp12}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2 3; do
  timeout 120 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector --case Q1,Q2,Q3 \
    --algorithm flat,team-small-k --layout right --json $out/r/right-r$round.json > $out/r/right-r$round.txt 2>&1
  echo "right round $round rc=$?"
  timeout 120 $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 \
    --algorithm flat,team-small-k --layout left --json $out/r/left-r$round.json > $out/r/left-r$round.txt 2>&1
  echo "left round $round rc=$?"
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    lay = f.split('/')[-1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        if r['selected']:
            t[(lay, r['kernel'], r['case'], r['dtype'], r['algorithm'])].append('%.4f/%.3f' % (r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
