#!/usr/bin/env bash
# Session 8, run 2: mma's staging loads alone (temporary builds, docs/variants-s8/loads-only.diff.txt):
#   .exp/lo:   shape 1 = cp.async 4/8-byte copies (the default), shapes 5-8 = register-staged 16-byte loads
#   .exp/lo16: shapes 5-8 = cp.async 16-byte copies into a cells-fastest layout (4 stages in double
#              for 1 MMA step per stage, else 2)
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
for b in lo lo16; do
  case $b in lo) shapes="1 5 6 7 8" ;; lo16) shapes="5 6 7 8" ;; esac
  for sh in $shapes; do
    GRAIN_MMA_SHAPE=$sh .exp/$b/grain bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/$b-s$sh.json > /dev/null 2>&1
  done
done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
tags = ['lo-s1', 'lo-s5', 'lo-s6', 'lo-s7', 'lo-s8', 'lo16-s5', 'lo16-s6', 'lo16-s7', 'lo16-s8']
t = {}
for tag in tags:
    for r in json.load(open(f'{o}/{tag}.json'))['rows']:
        d = t.setdefault((r['kernel'], r['case'], r['dtype']), {'C': r['C']})
        d[tag] = r['ms']
print('%-17s %-3s %-6s %6s ' % ('kernel', 'case', 'dtype', 'C') + ' '.join('%8s' % x for x in tags))
for k, v in sorted(t.items()):
    print('%-17s %-3s %-6s %6d ' % (k + (v['C'],)) + ' '.join('%8.3f' % v[x] for x in tags))
PY
