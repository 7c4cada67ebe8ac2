#!/usr/bin/env bash
# Session 11, run 3: `mma`'s packed configurations in double (GRAIN_MMA_SHAPE 5, 6, 7) against
# the default copied kernel (1) and cuBLAS, on the LayoutLeft FieldField Q2-Q4 double cases (the
# packed ones apply where C is even: FieldFieldScalar Q2/Q3, FieldFieldTensor Q2-Q4,
# FieldFieldVector Q4), two rounds alternating the shapes.
set -u
out=${OUT:-exp3}
mkdir -p "$out"
G=.device-carry/grain
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
for round in 1 2; do
  for shape in default 5 6 7; do
    if [ "$shape" = default ]; then unset GRAIN_MMA_SHAPE; algs=mma,cublas-strided-batched; else export GRAIN_MMA_SHAPE=$shape; algs=mma; fi
    "$G" bench contract --backend cuda --kernel $K --case Q2,Q3,Q4 --dtype double --algorithm $algs \
      --json "$out/exp3-s$shape-r$round.json" > "$out/exp3-s$shape-r$round.txt" 2>&1
    echo "round $round shape $shape rc=$?"
  done
done
unset GRAIN_MMA_SHAPE
