#!/usr/bin/env bash
# Session 17, run 6: LayoutLeft DataField float, the two cases below 0.85 (DataFieldVector /
# DataFieldTensor Q4). Temporary knobs: GRAIN_FLAT_PLAIN=1 puts flat's float threads cells
# fastest over all C (no 32-cell groups: a block reads 1 KB of one row instead of eight rows 6.6 KB
# apart); GRAIN_TSK_A16 / GRAIN_TSK_S give team-small-k's float K slices 16 loads in flight / S
# slices. Three alternating rounds.
set -u
out=${OUT:-exp6}
mkdir -p "$out/r"
G=.device-carry/grain
run() {  # tag env... ; algorithms
  local tag=$1 algs=$2; shift 2
  env "$@" timeout 120 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor --case Q3,Q4 \
    --dtype float --algorithm $algs --layout left --json $out/r/$tag-r$round.json > $out/r/$tag-r$round.txt 2>&1
  echo "$tag round $round rc=$?"
}
for round in 1 2 3; do
  run base flat,team-small-k X=1
  run plain flat GRAIN_FLAT_PLAIN=1
  run a16 team-small-k GRAIN_TSK_A16=1
  run s3 team-small-k GRAIN_TSK_S=3
  run s1a16 team-small-k GRAIN_TSK_S=1 GRAIN_TSK_A16=1
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['algorithm'], tag)].append('%.4f/%.3f' % (r['ms'], r['roofline']))
for k in sorted(t):
    print(*k, ' '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
