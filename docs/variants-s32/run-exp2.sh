#!/usr/bin/env bash
# Session 32, run 2 (H100), the final code (the CUDA kernels as in session 31; the CPU's flat and
# the bench's per-row copies new): every GPU test suite, racecheck over the ContractMma tests,
# then the LayoutLeft suite beside cuBLAS with the FieldField table (torch.einsum: session 31's
# run 4 file).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
mkdir -p "$out/r"
T=.device-carry/tests/grain_contract_tests
G=.device-carry/grain
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_brief=1 --gtest_filter='ContractMma.*' \
  > "$out/r/racecheck-mma.log" 2>&1
echo "SANITIZER racecheck ContractMma.* rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/r/racecheck-mma.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$out/r/racecheck-mma.log" | tr '\n' ' ')" >> "$out/summary.txt"
timeout 300 "$G" bench contract --backend cuda --kernel all \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout left \
  --json "$out/r/ff-left.json" > "$out/r/ff-left.txt" 2>&1
echo "bench contract layout left rc=$?" >> "$out/summary.txt"
tail -n 75 "$out/r/ff-left.txt" >> "$out/summary.txt"
python3 scripts/contract-table.py "$out/r/ff-left.json" docs/bench-torch-einsum-h100-s31.json --kernels FieldField >> "$out/summary.txt" 2>&1
cp "$out/r/ff-left.json" "$out/ff-left.json"
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
