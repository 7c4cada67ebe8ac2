#!/usr/bin/env bash
# Session 18, run 9: flat's field pairs at LayoutLeft DataFieldVector Q4 float launched as a range
# (256-thread blocks, GRAIN_EXP_PAIR_TEAM=0: as committed) or as teams of 64, 128, 256 threads
# (experiment knob): do smaller blocks, spread more evenly over the SMs, steady the time? Four
# alternating rounds, the case alone.
set -u
out=${OUT:-exp9}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2 3 4; do
  for team in 0 128 64 256; do
    GRAIN_EXP_PAIR_TEAM=$team timeout 60 $G bench contract --backend cuda --kernel DataFieldVector --case Q4 --dtype float \
      --algorithm flat --layout left --json "$out/r/t$team-r$round.json" > /dev/null 2>&1
    echo "team $team round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY' | tee "$out/summary.txt"
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/t*.json')):
    team = f.split('/')[-1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        t[team].append('%.4f (min %.4f) %.3f' % (r['ms'], r['ms_min'], r['roofline']))
for k in sorted(t):
    print(k, ' | '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
