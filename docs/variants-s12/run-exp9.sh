#!/usr/bin/env bash
# Session 12, run 9 (after run 8, `scripts/device-run.sh ff cpu-contract`): the CPU
# changes on the GPU machine's Xeon, 2 threads, x86-64-v3 builds, before (grain-cpu-v3-before:
# the session's first commit) and after, alternating, two rounds: DataField and FieldField Q1 / Q2
# with `flat` and `block` (the kernels the changes touch).
set -u
out=${OUT:-exp7}
mkdir -p "$out/r"
C=.device-carry
for b in grain-cpu-v3 grain-cpu-v3-before; do
  if [ -f "$C/$b.xz" ] && [ ! -x "$C/$b" ]; then xz -d -k "$C/$b.xz"; fi
done
for round in 1 2; do
  for b in grain-cpu-v3-before grain-cpu-v3; do
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true "$C/$b" bench contract --backend openmp \
      --kernel DataFieldScalar,DataFieldVector,DataFieldTensor,FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q1,Q2 --algorithm flat,block --json "$out/r/$b-r$round.json" > "$out/r/$b-r$round.txt" 2>&1
    echo "$b round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = os.path.basename(f)[:-5].replace('grain-cpu-v3', 'v3')
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'])][tag + ':' + r['algorithm']] = (r['ms'], r['roofline'])
for k in sorted(t):
    print(*k, ' '.join(f'{a}={v[0]:.2f}({v[1]:.2f})' for a, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
