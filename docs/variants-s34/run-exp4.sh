#!/usr/bin/env bash
# Session 34, run 4 (H100): LayoutLeft FieldFieldScalar / FieldFieldVector Q2 double (0.948x /
# 0.844x cuBLAS in run 3) under every copied and packed `mma` configuration (GRAIN_MMA_SHAPE) and
# cluster size (GRAIN_MMA_CLUSTER), two rounds in alternating order, cuBLAS beside each.
set -u
out=${OUT:-gpu-results}
G=.device-carry/grain
bash scripts/device-unpack.sh > /dev/null 2>&1
run() {  # label, then environment assignments
  local label=$1; shift
  env "$@" $G bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector --case Q2 \
    --dtype double --algorithm mma,cublas-strided-batched --reps 20 --json "$out/$label.json" > "$out/$label.txt" 2>&1
  echo "$label rc=$? $(grep -E '^FieldField(Scalar|Vector) +Q2 +double +(mma|cublas)' "$out/$label.txt" | awk '{print $1, $4, $5}' | tr '\n' ' ')"
}
configs="default:GRAIN_MMA_SHAPE=-1 s0:GRAIN_MMA_SHAPE=0 s1c1:GRAIN_MMA_SHAPE=1,GRAIN_MMA_CLUSTER=1 s1c4:GRAIN_MMA_SHAPE=1,GRAIN_MMA_CLUSTER=4 s2:GRAIN_MMA_SHAPE=2 s3:GRAIN_MMA_SHAPE=3 s5:GRAIN_MMA_SHAPE=5 s6:GRAIN_MMA_SHAPE=6 s7:GRAIN_MMA_SHAPE=7 s15:GRAIN_MMA_SHAPE=15"
for round in 1 2; do
  list=$configs; [ $round = 2 ] && list=$(echo $configs | tr ' ' '\n' | tac | tr '\n' ' ')
  for c in $list; do
    label=${c%%:*}; envs=$(echo ${c#*:} | tr ',' ' ')
    run "r${round}-$label" $envs
  done
done > "$out/summary.txt"
tar -czf "$out/results.tar.gz" -C "$out" $(cd "$out" && ls *.json *.txt | grep -v summary.txt) && (cd "$out" && rm -f r*.json r[12]-*.txt)
cat "$out/summary.txt"
