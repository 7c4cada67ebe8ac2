#!/usr/bin/env bash
set -u
G=.device-carry/grain; o=${OUT:-/tmp/out}
for f in 32 64 128; do
  GRAIN_L2_FETCH=$f $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldTensor --case Q2,Q3,Q4 --algorithm mma \
    --no-verify --reps 10 --json $o/l2-$f.json > $o/l2-$f.txt 2>&1
  echo "fetch $f: $(grep -m1 'L2 fetch' $o/l2-$f.txt)"; grep -E "^FieldField.*mma" $o/l2-$f.txt | awk '{print $1,$2,$3,$5}' | head -12
done
