#!/usr/bin/env bash
# Session 12, run 5: the L2 throughput of run 4 (mma at 95.6% of its peak on FieldFieldScalar Q3
# double, cuBLAS 81%) broken into its sub-metrics, with the DRAM bytes and the L2 sectors and
# requests from L1, for mma's copied kernel with and without the .L2::128B prefetch hint
# (GRAIN_MMA_SHAPE 1, 4), the packed one (5, 16-byte copies) and cuBLAS.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
M=breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,smsp__inst_executed_op_ldgsts.sum,sm__sass_inst_executed_op_ldgsts_cache_access.sum,sm__sass_inst_executed_op_ldgsts_cache_bypass.sum
for spec in "FieldFieldScalar Q3 double" "FieldFieldTensor Q4 double"; do
  set -- $spec
  for s in 1 4 5; do
    algs=mma; [ $s = 1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_SHAPE=$s timeout 200 ncu --clock-control none --metrics $M --kernel-name regex:'contract_mma|gemm' \
      --launch-skip 26 --launch-count $([ $s = 1 ] && echo 4 || echo 2) \
      $G bench contract --backend cuda --layout left --reps 1 --algorithm $algs \
      --kernel $1 --case $2 --dtype $3 > $o/r/ncu-$1-$2-$3-s$s.txt 2>&1
    echo "== $spec shape $s rc=$?"
    grep -E "^  \S.*\([0-9]+, [0-9]+, [0-9]+\)x|^\s+(lts|dram|gpu|smsp|sm)__" $o/r/ncu-$1-$2-$3-s$s.txt | sed -E 's/^  (\S{0,40}).*(\([0-9]+, [0-9]+, [0-9]+\)x\S+).*/  \1 \2/' | awk '{$1=$1};1'
  done
done
tar czf $o/run4.tar.gz -C $o r && rm -rf $o/r
