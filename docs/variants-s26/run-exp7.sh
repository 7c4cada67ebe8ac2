#!/usr/bin/env bash
# Session 26, run 7: Nsight Compute's executed instructions per SASS opcode for team-small-k's
# cell tiles (run 6's binaries), and the kernel's SASS (cuobjdump) at LayoutRight FieldFieldScalar / FieldFieldTensor Q2 float.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
for k in FieldFieldScalar FieldFieldTensor; do
  timeout 120 ncu --clock-control none --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
    --print-metric-instances details --kernel-name-base demangled --kernel-name regex:'CellTiles' --launch-skip 1 --launch-count 1 \
    .device-carry/grain bench contract --backend cuda --layout right --reps 2 --algorithm team-small-k \
    --kernel $k --case Q2 --dtype float > "$out/r/ncu-op-$k.txt" 2>&1
  echo "== $k rc=$?" | tee -a "$out/summary.txt"
  grep -E "sass__inst_executed_per_opcode|smsp__inst_executed.sum|ffma" "$out/r/ncu-op-$k.txt" | cut -c1-2000 | tee -a "$out/summary.txt"
done
cuobjdump -sass -fun '_ZN5grain4impl20cuda_team_for_kernelINS0_33ContractTeamSmallKCellTilesKernelIfLi4ELi4EEEEEvT_NS0_14CudaTeamLaunchE' .device-carry/grain > "$out/r/sass.txt" 2>&1
echo "sass rc=$? lines $(wc -l < "$out/r/sass.txt")" | tee -a "$out/summary.txt"
cd "$out" && tar czf run7-ncu.tar.gz r && rm -rf r
