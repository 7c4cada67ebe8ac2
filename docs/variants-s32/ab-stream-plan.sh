#!/usr/bin/env bash
# A/B of the flat stream plan: the Data kernels, LayoutLeft, 2 threads, old and new plan alternately.
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true
G=./build/host/apps/grain/grain
for i in 1 2; do
  for v in old new; do
    if [ $v = old ]; then export GRAIN_X_OLD=1; else unset GRAIN_X_OLD; fi
    $G bench contract --backend openmp --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor --algorithm flat --layout left --json /tmp/s32/ab-$v-$i.json > /tmp/s32/ab-$v-$i.txt 2>&1
  done
done
