#!/usr/bin/env bash
# Session 19, run 10: run 9's winner (4 partial sums, 2 fields a team, 2 slices: GRAIN_EXP_TSK_W=42
# GRAIN_EXP_TSK_S=2) against the committed form, LayoutLeft DataFieldTensor Q4 float at the
# suite's 512 MiB (69000 outputs) and at 384 / 448 MiB (51750 / 60375 outputs, inside Auto's
# window for float team-small-k), five alternating rounds.
set -u
out=${OUT:-exp10}
mkdir -p "$out/r"
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
for round in 1 2 3 4 5; do
  for mib in 512 384 448; do
    for w in 0 42; do
      GRAIN_EXP_TSK_W=$w GRAIN_EXP_TSK_S=2 timeout 60 $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype float \
        --algorithm team-small-k,flat --layout left --budget-mib $mib --json "$out/r/m$mib-w$w-r$round.json" > /dev/null 2>&1
    done
  done
  echo "round $round $(date +%T)" | tee -a "$out/summary.txt"
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections, statistics
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/m*-r[0-9].json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[cfg + ':' + r['algorithm'] + ' C=%d' % r['C']].append((r['ms'], r['roofline']))
for c, v in sorted(t.items()):
    print('%-34s %s  median %.4f' % (c, ' '.join('%.4f(%.3f)' % x for x in v), statistics.median(x[0] for x in v)))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
