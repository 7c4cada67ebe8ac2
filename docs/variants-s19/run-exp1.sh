#!/usr/bin/env bash
# Session 19, run 1: why did flat's field pairs run 10% slower as a range launch than as teams
# (session 18, run 9), and do other flat range launches share the cause? Experiment knobs
# (session 19 working tree, not committed): GRAIN_EXP_RANGE_BLOCK (range block size),
# GRAIN_EXP_RANGE_SMEM (dynamic shared memory a range block asks for, as the team launch's 2112-byte
# reduction reserve does), GRAIN_EXP_PAIR_TEAM (0: the pairs as a range launch).
# Part 1: LayoutLeft DataFieldVector Q4 float (the pairs), 3 alternating rounds.
# Part 2: LayoutLeft Data kernels, flat only, at range blocks 256 / 256 + 2112 B / 128 / 64.
# Part 3: `grain tune` over LayoutRight float DataField with short K (flat against team-small-k).
set -u
out=${OUT:-exp1}
mkdir -p "$out/r"
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
date +%T | tee -a "$out/summary.txt"
for round in 1 2 3; do
  for cfg in "0 256 0" "0 256 2112" "0 64 0" "64 256 0" "256 256 0"; do
    set -- $cfg
    GRAIN_EXP_PAIR_TEAM=$1 GRAIN_EXP_RANGE_BLOCK=$2 GRAIN_EXP_RANGE_SMEM=$3 timeout 60 $G bench contract --backend cuda \
      --kernel DataFieldVector --case Q4 --dtype float --algorithm flat --layout left \
      --json "$out/r/pair-t$1-b$2-s$3-r$round.json" > /dev/null 2>&1
    echo "pair team $1 block $2 smem $3 round $round rc=$?"
  done
done
date +%T | tee -a "$out/summary.txt"
for cfg in "256 0" "256 2112" "128 0" "64 0"; do
  set -- $cfg
  GRAIN_EXP_RANGE_BLOCK=$1 GRAIN_EXP_RANGE_SMEM=$2 timeout 150 $G bench contract --backend cuda \
    --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat --layout left --json "$out/r/data-b$1-s$2.json" > /dev/null 2>&1
  echo "data block $1 smem $2 rc=$? $(date +%T)" | tee -a "$out/summary.txt"
done
timeout 150 $G tune --backend cuda --layout right --kernel DataFieldScalar,DataFieldVector,DataFieldTensor --dtype float \
  --fields 4,8,16,27 --points 4,6,8,10,12 --budget-mib 512 --output "$out/r/tune-right.txt" > "$out/r/tune-right.log" 2>&1
echo "tune rc=$? $(date +%T)" | tee -a "$out/summary.txt"
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections
d = sys.argv[1]
t = collections.defaultdict(list)
for f in sorted(glob.glob(d + '/pair-*.json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[cfg].append('%.4f (min %.4f) %.3f' % (r['ms'], r['ms_min'], r['roofline']))
for k in sorted(t):
    print(k, ' | '.join(t[k]))
files = sorted(glob.glob(d + '/data-*.json'))
rows = collections.OrderedDict()
for f in files:
    cfg = f.split('/')[-1][5:-5]
    j = json.load(open(f))
    for r in j['rows']:
        rows.setdefault((r['kernel'], r['case'], r['dtype']), {})[cfg] = (r['ms'], r['roofline'])
cfgs = [f.split('/')[-1][5:-5] for f in files]
print('kernel case dtype | ' + ' | '.join(cfgs) + '  (ms roofline)')
for k, v in rows.items():
    print(' '.join(k), '|', ' | '.join('%.4f %.3f' % v[c] if c in v else '-' for c in cfgs))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
