#!/bin/bash
cd /work/main
for round in 1 2; do
 for b in old new; do
   OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/grain-$b bench contract --backend openmp --layout right \
     --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor --case all --dtype all --algorithm flat --json /tmp/ab2-$b-$round.json > /tmp/ab2-$b-$round.txt 2>&1
   echo "$b $round rc=$? $(date)"
 done
done
