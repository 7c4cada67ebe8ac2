#!/usr/bin/env bash
# Session 13, run 13: the final binaries (run 10 plus the split in one header and the unaligned-base
# test). Every GPU test suite, compute-sanitizer memcheck and racecheck over the contract suite, the
# contraction suite in both layouts beside cuBLAS and torch.einsum (scripts/device-run.sh tests
# ff), then Nsight Compute on the wgmma kernel (FieldFieldTensor Q4 and FieldFieldScalar Q4 float):
# shared-memory wavefronts against the global loads' L1 requests and sectors.
set -u
out=${OUT:-exp13}
mkdir -p "$out/ncu"
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=200 OUT="$out/main" bash scripts/device-run.sh tests ff
G=.device-carry/grain
M=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__cycles_elapsed.avg,gpu__time_duration.sum,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
for kc in "FieldFieldTensor Q4" "FieldFieldScalar Q4"; do
  set -- $kc
  timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:wgmma --launch-count 1 \
    $G bench contract --backend cuda --layout left --reps 1 --algorithm mma --kernel $1 --case $2 --dtype float \
    > $out/ncu/ncu-$1-$2.txt 2>&1
  echo "== ncu $1 $2 rc=$?"; grep -E "^\s+(l1tex|sm|gpu|lts|dram)__" $out/ncu/ncu-$1-$2.txt | awk '{$1=$1};1'
done
tar czf "$out/ncu.tar.gz" -C "$out" ncu && rm -rf "$out/ncu"
