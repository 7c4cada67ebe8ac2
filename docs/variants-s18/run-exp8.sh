#!/usr/bin/env bash
# Session 18, run 8: the final binaries at LayoutLeft DataFieldVector Q4 float, where run 7's full
# suite gave flat 0.2311 ms (min 0.2163) against run 6's 0.2149 with field pairs: which kernel
# runs (Nsight Compute's launch list), then three rounds alone and three inside the Data suite.
set -u
out=${OUT:-exp8}
mkdir -p "$out/r"
G=.device-carry/grain
timeout 120 ncu --section LaunchStats --kernel-name-base mangled --kernel-name regex:ContractFlat --launch-count 2 \
  $G bench contract --backend cuda --kernel DataFieldVector --case Q4 --dtype float --algorithm flat --layout left 2>&1 \
  | grep -E "ContractFlat|Registers|Grid Size|Waves" | cut -c1-160 | head -12
for round in 1 2 3; do
  timeout 60 $G bench contract --backend cuda --kernel DataFieldVector --case Q4 --dtype float --algorithm flat,team-small-k \
    --layout left 2>&1 | grep -E "^DataFieldVector" | head -2
done
for round in 1 2 3; do
  timeout 100 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor --dtype float \
    --algorithm flat,block,team-small-k,team-stride --layout left --json "$out/r/suite-r$round.json" 2>&1 | grep -E "^DataFieldVector +Q4" | head -2
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
