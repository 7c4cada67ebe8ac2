#!/usr/bin/env bash
# Session 10, run 10: a LayoutLeft `grain tune` of the six Data kernels on the final code (the
# model's pick against the measured best per shape class, out of the suite's sample).
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
.device-carry/grain tune --backend cuda --layout left \
  --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --output $o/contract-tuning-left-data.txt > $o/tune-left-data.txt 2>&1
echo "tune rc=$?"
python3 - "$o/tune-left-data.txt" <<'PY'
import re, sys
n = within = 0; worst = []
for line in open(sys.argv[1]):
    m = re.search(r'best (\S+)\s+([\d.]+) ms\s+\(untuned pick (\S+) ([\d.]+) ms', line)
    if not m: continue
    n += 1
    r = float(m.group(4)) / float(m.group(2))
    within += r <= 1.10
    worst.append((r, line.strip()[:110]))
print(f"{within} of {n} classes: the model within 10% of the best")
for r, l in sorted(worst)[-8:]: print(f"{r:.3f} {l}")
PY
