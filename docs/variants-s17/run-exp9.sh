#!/usr/bin/env bash
# Session 17, run 9: flat's float threads at LayoutLeft with 32 (the default), 64, 128 or 256 cells
# per group (GRAIN_FLAT_G, temporary): with C odd, neighbouring groups re-fetch each other's
# boundary sectors from L2 (run 8); wider groups keep them in one block (L1), at the cost of fewer
# fields per block sharing the data row. Data kernels Q1-Q4 in float, three alternating rounds.
set -u
out=${OUT:-exp9}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2 3; do
  for g in 32 64 128 256; do
    GRAIN_FLAT_G=$g timeout 120 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor,DataDataTensor \
      --case Q3,Q4 --dtype float --algorithm flat --layout left --json $out/r/g$g-r$round.json > $out/r/g$g-r$round.txt 2>&1
    echo "G $g round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/g*.json')):
    g = f.split('/g')[-1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], 'C=%d' % r['C'], 'G=%s' % g)].append('%.4f/%.3f' % (r['ms'], r['roofline']))
for k in sorted(t, key=lambda k: (k[0], k[1], int(k[3][2:]))):
    print(*k, ' '.join(t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
