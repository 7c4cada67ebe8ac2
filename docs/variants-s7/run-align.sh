#!/usr/bin/env bash
# Session 7, run 2: mma's time per cell with C = 16 q + r (row starts' alignment), beside cuBLAS.
set -u
C=.device-carry; G=$C/grain; o=${OUT:-/tmp/out}; mkdir -p $o
for m in 16,0 16,1 16,4 16,8 16,2; do
  for a in mma cublas-strided-batched; do
  GRAIN_BENCH_C_MOD=$m $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm $a --no-verify --reps 10 --json $o/m$(echo $m | tr , _)-$a.json > /dev/null 2>&1
  echo "$m $a rc=$?"; done
done
python3 - "$o" <<'PY'
import json, sys, glob, os
o = sys.argv[1]
t = {}; tags = []
for f in sorted(glob.glob(o + '/m*.json')):
    d = json.load(open(f)); tag = os.path.basename(f)[1:-5].replace('cublas-strided-batched','cub')
    tags.append(tag)
    for r in d['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = r['ms'] / r['C'] * 1000
print('ms per 1000 cells')
print('%-18s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%9s' % x[:9] for x in tags))
for k, v in sorted(t.items()):
    print('%-18s %-3s %-6s ' % k + ' '.join('%9.4f' % v[x] if x in v else '%9s' % '-' for x in tags))
PY
