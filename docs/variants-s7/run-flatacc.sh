#!/usr/bin/env bash
# Session 7, run 5: flat's partial sums in float under 2^18 outputs: 4, 8, 16, 32 (LayoutLeft GPU).
set -u
G=.exp/acc/grain; o=${OUT:-/tmp/out}; mkdir -p $o
for a in 8 16 32 4 8; do
  GRAIN_FLAT_ACC=$a $G bench contract --backend cuda --kernel DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
    --case Q3,Q4 --dtype float --algorithm flat,team-small-k --json $o/a$a.json > $o/a$a.txt 2>&1
  echo "acc $a rc=$?"
  grep -E "^Data.* (flat|team-small-k) " $o/a$a.txt | awk '{print $1,$2,$4,$5,$9}' | paste -sd' ' | sed 's/Data/\nData/g'
done
