#!/usr/bin/env bash
# Session 31, run 2 (H100), the final code (configuration 15 the default for packed double cells
# of 33-64 fields): memcheck and racecheck over the tests that run it (every shape in double, and
# the default path on 64 x 64 and 57 x 57 LayoutLeft cells); the LayoutLeft suite beside cuBLAS
# with the FieldField table (torch.einsum: session 27's file); Nsight Compute on FieldFieldScalar
# Q3 double (configuration 15 and cuBLAS); then every GPU test suite.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
G=.device-carry/grain
for tool in memcheck racecheck; do
  timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 "$T/grain_contract_tests" \
    --gtest_filter='ContractMma.EveryBlockShapeDouble:ContractMma.LayoutLeftDoubleQ3Cells' > "$out/r/$tool-mma.log" 2>&1
  echo "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-mma.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/$tool-mma.log" | head -2)" \
    | tee -a "$out/summary.txt"
done
timeout 280 "$G" bench contract --backend cuda --kernel all \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout left \
  --json "$out/r/ff-left.json" > "$out/r/ff-left.txt" 2>&1
echo "bench contract layout left rc=$?" | tee -a "$out/summary.txt"
tail -n 75 "$out/r/ff-left.txt" >> "$out/summary.txt"
python3 scripts/contract-table.py "$out/r/ff-left.json" docs/variants-s27/run6-torch.json --kernels FieldField >> "$out/summary.txt" 2>&1
# Kernels whose name has contract_mma or gemm, the 26 launches of the GEMM ceilings skipped (as
# docs/variants-s12/run-exp4.sh).
timeout 200 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
  --kernel-name-base demangled --kernel-name regex:'contract_mma|gemm' --launch-skip 26 --launch-count 4 \
  "$G" bench contract --backend cuda --layout left --reps 2 --algorithm mma,cublas-strided-batched \
  --kernel FieldFieldScalar --case Q3 --dtype double > "$out/r/ncu-ffs-q3-double.txt" 2>&1
echo "ncu rc=$?" | tee -a "$out/summary.txt"
grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|L2 Hit Rate|Achieved Occupancy|Registers Per Thread|Issued Warp Per Scheduler' \
  "$out/r/ncu-ffs-q3-double.txt" | cut -c1-150 >> "$out/summary.txt"
tar czf "$out/checks.tar.gz" -C "$out" r && rm -rf "$out/r"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
