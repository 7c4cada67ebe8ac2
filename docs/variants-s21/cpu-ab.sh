#!/usr/bin/env bash
# A/B of grain binaries on the CPU FieldField Q2-Q4 cases, rounds alternating between binaries.
# usage: [KERNELS=..] [CASES=..] [LAYOUT=right] [REPS=10] cpu-ab.sh OUTDIR ROUNDS THREADS BUDGET_MIB ALGS BIN...
#   (each BIN: name=path; the defaults: FieldField, Q2-Q4, LayoutRight)
set -euo pipefail
out=$1 rounds=$2 threads=$3 budget=$4 algs=$5; shift 5
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for nb in "$@"; do
    name=${nb%%=*} bin=${nb#*=}
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=true "$bin" bench contract --backend openmp \
      --kernel ${KERNELS:-FieldFieldScalar,FieldFieldVector,FieldFieldTensor} --case ${CASES:-Q2,Q3,Q4} --layout ${LAYOUT:-right} \
      --algorithm "$algs" --budget-mib "$budget" --reps ${REPS:-10} \
      --json "$out/$name-$r.json" > /dev/null 2>&1
  done
done
