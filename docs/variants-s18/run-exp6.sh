#!/usr/bin/env bash
# Session 18, run 6: flat with two fields a thread (experiment knob GRAIN_EXP_FLAT_PAIR, since removed: 1 = 8
# partial sums per field, 2 = 4; 0 = one field, as committed) on the LayoutLeft float DataField
# cases that take flat's 8-partial-sum threads, three alternating rounds. Theory under test: at
# DataFieldVector Q4 float (1657 cells, 125 fields, K = 648: 207125 threads, 48 registers, 1.22
# waves) the last part-wave and each thread's chain of K / 8 dependent load rounds set the time.
set -u
out=${OUT:-exp6}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2 3; do
  for mode in 0 1 2; do
    GRAIN_EXP_FLAT_PAIR=$mode timeout 100 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor \
      --dtype float --algorithm flat --layout left --json "$out/r/m$mode-r$round.json" > "$out/r/m$mode-r$round.txt" 2>&1
    echo "mode $mode round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY' | tee "$out/summary.txt"
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/m*.json')):
    mode = f.split('/')[-1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['C'] % 4, mode)].append((r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join('%.4f/%.3f' % x for x in t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
