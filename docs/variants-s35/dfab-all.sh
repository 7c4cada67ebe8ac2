#!/bin/bash
for round in $(seq ${ROUNDS:-3}); do
for k in s v t; do for q in 1 2 3 4; do for d in f d; do
  OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./dfab $k $q $d ${ITERS:-16}
done; done; done; done
