#!/usr/bin/env bash
# Session 7, run 9: flat's cell group (32 = current, 128, 512, 2048 cells, then fields) on the
# LayoutLeft Data kernels.
set -u
G=.exp/acc/grain; o=${OUT:-/tmp/out}; mkdir -p $o
for g in 32 128 512 2048 32b; do
  GRAIN_FLAT_G=${g%b} $G bench contract --backend cuda --kernel DataDataScalar,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat --json $o/g$g.json > /dev/null 2>&1
  echo "g $g rc=$?"
done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]; tags = ['g32','g128','g512','g2048','g32b']
t = {}
for tag in tags:
    for r in json.load(open(f'{o}/{tag}.json'))['rows']:
        if r['algorithm'] == 'flat': t.setdefault((r['kernel'], r['case'], r['dtype']), {})[tag] = (r['roofline'], r['verified'])
print('%-16s %-3s %-6s ' % ('kernel','case','dtype') + ' '.join('%6s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-16s %-3s %-6s ' % k + ' '.join('%6.3f' % v[x][0] if x in v else '%6s' % '-' for x in tags), '' if all(x[1] for x in v.values()) else 'UNVERIFIED')
PY
