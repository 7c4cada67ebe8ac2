#!/usr/bin/env bash
# Session 30, run 4 (the GPU machine, carrying .device-carry): which of the session's LayoutLeft
# changes the Xeon's 2 threads take badly (run 3: the final code slower than the old on several
# Q2 float cases). `block` alone on LayoutLeft FieldField Q2-Q4, the knob build (cpu-knobs.patch on
# the final code, x86-64-v4): A = the final rules; B = the old group rule (1 MiB, 8 teams a thread)
# with the prefetch; C = the old group rule without the prefetch (the old code but for the pinned,
# not inlined register block); D = the old binary (ae70d8d).
set -u
top=${OUT:-gpu-results}
out=$top/r
mkdir -p "$out"
bash scripts/device-unpack.sh
C=.device-carry
log="$out/summary.txt"
say() { echo "$*" | tee -a "$log"; }
run() {  # label binary env...
  local label=$1 bin=$2; shift 2
  env OMP_NUM_THREADS=2 OMP_PROC_BIND=true "$@" timeout 200 "$C/$bin" bench contract --backend openmp --layout left \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm block \
    --dtype all --json "$out/xeon-$label.json" > "$out/xeon-$label.txt" 2>&1
  say "xeon $label rc=$?"
}
run D1 grain-cpu-v4-old
run A1 grain-cpu-v4-knobs
run B1 grain-cpu-v4-knobs GRAIN_TMP_GB=1024 GRAIN_TMP_TPT=8
run C1 grain-cpu-v4-knobs GRAIN_TMP_GB=1024 GRAIN_TMP_TPT=8 GRAIN_TMP_PFD=0
run A2 grain-cpu-v4-knobs
run C2 grain-cpu-v4-knobs GRAIN_TMP_GB=1024 GRAIN_TMP_TPT=8 GRAIN_TMP_PFD=0
run D2 grain-cpu-v4-old
cp "$log" "$top/summary.txt"
tar czf "$top/results.tar.gz" -C "$out" . && rm -rf "$out"
