#!/usr/bin/env bash
# Session 29, run 5 (H100), the final code (mma's double rows kernel, the default and Auto's pick
# for LayoutRight double FieldField with L, R > 32 where 3 L R < (L + R) K): memcheck and racecheck
# over the rows kernel's tests, memcheck over the CUDA contract tests, every test suite.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .device-carry/tests/grain_contract_tests \
    --gtest_brief=1 --gtest_filter='ContractMma.EveryBlockShapeLayoutRight:ContractMma.LayoutRightDoubleQ4Cells' > "$out/r/$tool-rows.log" 2>&1
  echo "SANITIZER $tool rows kernel tests rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-rows.log" | tail -1) $(grep -cE '^\[       OK \]' "$out/r/$tool-rows.log") ok" \
    | tee -a "$out/summary.txt"
done
GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1)" \
  | tee -a "$out/summary.txt"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
