#!/usr/bin/env bash
# Session 15, run 2: the CPU FieldField suite (block, flat, one OpenBLAS GEMM per cell) on 2
# threads of the GPU machine's Xeon, x86-64-v3 builds of session 14's code (old) and this
# session's (new), one kernel per call (run 1's whole-suite calls overran their 80 s), two rounds;
# everything in one tarball (the device tool returns at most 8 files).
set -u
out=${OUT:-exp2}
mkdir -p "$out/x"
C=.device-carry
for v in old new; do [ -f $C/grain-cpu-v3-$v.xz ] && xz -d -k -f $C/grain-cpu-v3-$v.xz; done
for round in 1 2; do
for k in FieldFieldVector FieldFieldTensor FieldFieldScalar; do
  for v in old new; do
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true timeout 85 stdbuf -oL $C/grain-cpu-v3-$v bench contract --backend openmp \
      --kernel $k --case all --dtype all --algorithm flat,block,openblas-gemm --reps 5 \
      --json "$out/x/xeon-$v-$k-$round.json" > "$out/x/xeon-$v-$k-$round.txt" 2>&1
    echo "xeon $v $k round $round rc=$?"
  done
done
done
tar czf "$out/xeon.tar.gz" -C "$out" x && rm -rf "$out/x"
