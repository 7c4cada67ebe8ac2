#!/usr/bin/env bash
# Session 29, run 10 (H100), the final code (the rows kernel also mma's default for LayoutRight
# float cells of 33-64 fields a side where 3 L R < (L + R) K): the contract and tuning suites,
# memcheck and racecheck over the rows kernel's default-path tests, then the LayoutRight suite
# beside cuBLAS with the FieldField table (torch.einsum: session 27's file).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
G=.device-carry/grain
for t in grain_contract_tests grain_contract_tuning_tests; do
  timeout 240 "$T/$t" --gtest_brief=1 > "$out/r/$t.log" 2>&1
  echo "TEST $t rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/$t.log" | head -2)" | tee -a "$out/summary.txt"
done
grep -E "worst error|FAILED|Failure" "$out/r/grain_contract_tests.log" | head -30 >> "$out/summary.txt"
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$T/grain_contract_tests" \
    --gtest_filter='ContractMma.LayoutRight*' > "$out/r/$tool-rows.log" 2>&1
  echo "SANITIZER $tool ContractMma.LayoutRight* rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-rows.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/$tool-rows.log" | head -2)" \
    | tee -a "$out/summary.txt"
done
timeout 280 "$G" bench contract --backend cuda --kernel all \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout right \
  --json "$out/r/ff-right.json" > "$out/r/ff-right.txt" 2>&1
echo "bench contract layout right rc=$?" | tee -a "$out/summary.txt"
tail -n 75 "$out/r/ff-right.txt" >> "$out/summary.txt"
python3 scripts/contract-table.py "$out/r/ff-right.json" docs/variants-s27/run6-torch.json --kernels FieldField >> "$out/summary.txt" 2>&1
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
