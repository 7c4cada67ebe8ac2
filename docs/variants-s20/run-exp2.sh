#!/usr/bin/env bash
# Session 20, run 2 (an H100 asked for; run 1 came on an H200): the old/new A/B of run 1 at
# LayoutLeft DataFieldTensor Q4 float (three alternating rounds, 512 and 384 MiB), then the suite
# on the final code: LayoutLeft, torch.einsum, LayoutRight (each bounded; a part cut off by its
# timeout leaves no JSON).
set -u
out=${OUT:-exp2}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
log="$out/summary.txt"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a "$log"
for round in 1 2 3; do
  for mib in 512 384; do
    for b in grain-old grain; do
      timeout 40 $C/$b bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype float \
        --algorithm team-small-k,flat --layout left --budget-mib $mib --json "$out/r/m$mib-$b-r$round.json" > /dev/null 2>&1
    done
  done
  say "round $round $(date +%T)"
done
python3 - "$out/r" <<'PY' | tee -a "$log"
import json, glob, sys, collections, statistics
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/m*-r[0-9].json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[cfg + ':' + r['algorithm'] + ' C=%d' % r['C']].append((r['ms'], r['roofline']))
for c, v in sorted(t.items()):
    print('%-40s %s  median %.4f' % (c, ' '.join('%.4f(%.3f)' % x for x in v), statistics.median(x[0] for x in v)))
PY
A=flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched
timeout 170 $G bench contract --backend cuda --kernel all --algorithm $A --layout left --json "$out/ff-left.json" > "$out/r/ff-left.txt" 2>&1
say "bench contract layout left rc=$? $(date +%T)"
timeout 100 python3 bench/torch_einsum.py --json "$out/torch.json" > "$out/r/torch.txt" 2>&1
say "torch einsum rc=$? $(date +%T)"
timeout 120 $G bench contract --backend cuda --kernel all --algorithm $A --layout right --json "$out/ff-right.json" > "$out/r/ff-right.txt" 2>&1
say "bench contract layout right rc=$? $(date +%T)"
tar czf "$out/text.tar.gz" -C "$out" r && rm -rf "$out/r"
