#!/usr/bin/env bash
# Session 17, run 10: team-small-k's staged rows (LayoutRight Data) with other team shapes:
# GRAIN_SR_THREADS (threads a team: 64, 128 = default, 256) x GRAIN_SR_SCRATCH (bytes a team:
# 16384, 32768 = default, 49152), temporary knobs; DataField Q1-Q4 and DataData Q2, both types,
# alternating rounds.
set -u
out=${OUT:-exp10}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2; do
  for cfg in 128x32768 64x32768 256x32768 128x16384 128x49152 256x49152; do
    th=${cfg%x*}; sc=${cfg#*x}
    GRAIN_SR_THREADS=$th GRAIN_SR_SCRATCH=$sc timeout 120 $G bench contract --backend cuda \
      --kernel DataFieldScalar,DataFieldVector,DataFieldTensor,DataDataScalar --case Q1,Q2,Q3,Q4 --algorithm team-small-k \
      --layout right --json $out/r/c$cfg-r$round.json > $out/r/c$cfg-r$round.txt 2>&1
    echo "cfg $cfg round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/c*.json')):
    cfg = f.split('/c')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'])].setdefault(cfg, []).append(r['roofline'])
cfgs = ['128x32768', '64x32768', '256x32768', '128x16384', '128x49152', '256x49152']
print('case', *cfgs)
for k in sorted(t):
    print(*k, *['%.3f' % (sum(t[k].get(c, [0])) / max(1, len(t[k].get(c, [])))) for c in cfgs])
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
