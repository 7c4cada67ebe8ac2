#!/usr/bin/env bash
# Session 7, run 7: mma's loads alone (GRAIN_MMA_L2PF=3) and in full for block shapes 1-3.
set -u
G=.exp/acc/grain; o=${OUT:-/tmp/out}; mkdir -p $o
for sh in 1 2 3; do for v in 3 0; do
  GRAIN_MMA_SHAPE=$sh GRAIN_MMA_L2PF=$v $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/s${sh}v$v.json > /dev/null 2>&1
done; done
python3 - "$o" <<'PY'
import json, sys, os
o = sys.argv[1]; tags = ['s1v3','s2v3','s3v3','s1v0','s2v0','s3v0']
t = {}
for tag in tags:
    for r in json.load(open(f'{o}/{tag}.json'))['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype'], r['C']), {})[tag] = r['ms']
print('%-17s %-3s %-6s %6s ' % ('kernel','case','dtype','C') + ' '.join('%7s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-17s %-3s %-6s %6d ' % k + ' '.join('%7.3f' % v[x] if x in v else '%7s' % '-' for x in tags))
PY
