#!/bin/bash
cd /work/main
for round in 1 2 3; do
 for b in old new; do
   OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/grain-$b bench contract --backend openmp --layout right --budget-mib 4 --reps 200 \
     --kernel DataDataScalar,DataDataVector,DataFieldScalar,DataFieldVector,DataFieldTensor --case all --dtype all --algorithm flat --json /tmp/ab3-$b-$round.json > /tmp/ab3-$b-$round.txt 2>&1
   echo "$b $round rc=$?"
 done
done
