#!/usr/bin/env bash
# Session 9, runs 15-16 (16: after the small-cell rule): LayoutRight grain tune on the final code: the Data kernels (session 6's
# classes) and small FieldField cells; counts how often the model (untuned pick) is within 10% of
# the measured best.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
G=.device-carry/grain
$G tune --backend cuda --layout right --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --fields 8,27,125 --points 24,64,216,1000 --output $o/tune-right-data.txt > $o/tune-right-data-output.txt 2>&1
echo "data rc=$?"
$G tune --backend cuda --layout right --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
  --fields 4,8,12 --points 8,27,64 --output $o/tune-right-ff.txt > $o/tune-right-ff-output.txt 2>&1
echo "ff rc=$?"
python3 - $o/tune-right-data-output.txt $o/tune-right-ff-output.txt <<'PY'
import re, sys
pat = re.compile(r'^\s*(\S+)\s+(\S+)\s+L=(\d+)\s+R=(\d+)\s+K=(\d+)\s+C=(\d+)\s+best (\S+)\s+([\d.]+) ms\s+\(untuned pick (\S+) ([\d.]+) ms')
for f in sys.argv[1:]:
    n = ok = 0
    for line in open(f):
        m = pat.match(line)
        if not m: continue
        n += 1
        best, model = float(m.group(8)), float(m.group(10))
        if model <= 1.10 * best: ok += 1
        else: print('  MISS', ' '.join(m.group(i) for i in range(1, 8)), m.group(8), 'model', m.group(9), m.group(10), 'x%.2f' % (model / best))
    print(f, ': model within 10% of the best in', ok, 'of', n)
PY
