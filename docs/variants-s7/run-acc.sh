#!/usr/bin/env bash
# Session 7, run 3: dot_strided's accumulators (2 = baseline, 4, 8) on the LayoutLeft Data kernels.
set -u
C=.device-carry; o=${OUT:-/tmp/out}; mkdir -p $o
for v in base v4 v8 base2; do
  case $v in base*) G=$C/grain ;; *) G=.exp/$v/grain ;; esac
  $G bench contract --backend cuda --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --algorithm flat,team-small-k --reps 20 --json $o/acc-$v.json > $o/acc-$v.txt 2>&1
  echo "$v rc=$?"
done
python3 - "$o" <<'PY'
import json, sys, os
o = sys.argv[1]; tags = ['base','v4','v8','base2']
t = {}
for tag in tags:
    d = json.load(open(f'{o}/acc-{tag}.json'))
    for r in d['rows']:
        t.setdefault((r['kernel'], r['case'], r['dtype'], r['algorithm']), {})[tag] = (r['ms'], r['roofline'], r.get('verified'))
print('%-16s %-3s %-6s %-13s ' % ('kernel','case','dtype','algorithm') + ' '.join('%13s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-16s %-3s %-6s %-13s ' % k + ' '.join('%7.3f (%.2f)' % v[x][:2] if x in v else '%13s' % '-' for x in tags), '' if all(v[x][2] for x in v) else 'UNVERIFIED')
PY
