#!/bin/bash
cd /work/main
for round in 1 2; do
 for b in default host; do
   OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./build/$b/apps/grain/grain bench contract --backend openmp --layout left \
     --kernel DataFieldTensor,DataFieldVector --case Q1,Q2,Q3 --dtype all --algorithm auto --json /tmp/ab4-$b-d-$round.json > /dev/null 2>&1
   OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./build/$b/apps/grain/grain bench contract --backend openmp --layout left \
     --kernel FieldFieldScalar,FieldFieldTensor --case Q1,Q4 --dtype all --algorithm auto,openblas-gemm --json /tmp/ab4-$b-f-$round.json > /dev/null 2>&1
   echo "$b $round $(date)"
 done
done
