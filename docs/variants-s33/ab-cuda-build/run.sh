#!/bin/bash
# alternate default (CUDA-enabled) and host-only builds, LayoutLeft and LayoutRight, Auto only
cd /work/main
for round in 1 2; do
 for b in default host; do
  for lay in left right; do
   OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./build/$b/apps/grain/grain bench contract --backend openmp --layout $lay \
     --kernel DataFieldTensor,FieldFieldScalar,DataDataVector --case Q1,Q4 --dtype float --algorithm auto --json /tmp/ab-$b-$lay-$round.json > /tmp/ab-$b-$lay-$round.txt 2>&1
   echo "$b $lay $round rc=$?"
  done
 done
done
