#!/usr/bin/env bash
# Session 28, run 8 (H100), the final code: LayoutLeft FieldField Q2-Q4 double on `mma` under each
# forced configuration (GRAIN_MMA_SHAPE=N; unset = the rule, run first and last), beside cuBLAS.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
for s in rule 0 1 2 3 4 5 6 rule2; do
  envs=""; case $s in rule|rule2) ;; *) envs="GRAIN_MMA_SHAPE=$s" ;; esac
  env $envs timeout 100 "$G" bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --dtype double --algorithm mma,cublas-strided-batched --json "$out/r/mma-$s.json" > "$out/r/mma-$s.txt" 2>&1
  echo "shape $s rc=$? $(python3 -c "
import json
rows=json.load(open('$out/r/mma-$s.json'))['rows']
print(' '.join('%s%s:%s=%.3f%s' % (r['kernel'][10], r['case'], r['algorithm'][:3], r['ms'], '' if r['verified'] else '!') for r in rows))" 2>&1)" | tee -a "$out/summary.txt"
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
