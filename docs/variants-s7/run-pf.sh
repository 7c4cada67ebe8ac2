#!/usr/bin/env bash
# Session 7, run 6: mma with cp.async's L2 prefetch qualifier (none, 64B, 128B, 256B), and its
# loads alone (+1: no multiplications, +2: no result stores), beside cuBLAS. FieldField Q2-Q4.
set -u
G=.exp/acc/grain; o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
for v in 0 64 128 256 3 1 2 131 0; do
  GRAIN_MMA_L2PF=$v $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/pf$v.json > $o/pf$v.txt 2>&1
  echo "pf $v rc=$?"
done
$G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm cublas-strided-batched --no-verify --reps 10 --json $o/cublas.json > $o/cublas.txt 2>&1
python3 - "$o" <<'PY'
import json, sys, os
o = sys.argv[1]; tags = ['pf0','pf64','pf128','pf256','pf3','pf131','pf1','pf2','cublas']
t = {}
for tag in tags:
    f = f'{o}/{tag}.json'
    if not os.path.exists(f): continue
    for r in json.load(open(f))['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = r['ms']
print('%-17s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%7s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-17s %-3s %-6s ' % k + ' '.join('%7.3f' % v[x] if x in v else '%7s' % '-' for x in tags))
PY
