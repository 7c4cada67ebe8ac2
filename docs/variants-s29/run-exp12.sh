#!/usr/bin/env bash
# Session 29, run 12 (H100), the final code (run 10's, with mma's two 16-byte copy helpers made
# one): every GPU test suite, memcheck and racecheck over the rows kernel's default-path tests,
# and LayoutRight FieldField Q2-Q4 in both types (Auto beside cuBLAS) as a check that the rows
# kernel's times held.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
G=.device-carry/grain
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$T/grain_contract_tests" \
    --gtest_filter='ContractMma.LayoutRight*' > "$out/r/$tool-rows.log" 2>&1
  echo "SANITIZER $tool ContractMma.LayoutRight* rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-rows.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/$tool-rows.log" | head -2)" \
    | tee -a "$out/summary.txt"
done
timeout 150 "$G" bench contract --backend cuda --layout right --dtype all \
  --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm auto,cublas-strided-batched \
  --json "$out/r/ff-right-auto.json" > "$out/r/ff-right-auto.txt" 2>&1
echo "bench rc=$?" | tee -a "$out/summary.txt"
python3 scripts/contract-table.py "$out/r/ff-right-auto.json" --kernels FieldField >> "$out/summary.txt" 2>&1
tar czf "$out/checks.tar.gz" -C "$out" r && rm -rf "$out/r"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
