#!/usr/bin/env bash
# Session 22, run 2 (GPU machine, the binaries of run 1): racecheck over the CUDA contract tests
# alone, with room for its 290 s (run 1's 200 s bound stopped it).
set -u
bash scripts/device-unpack.sh > /dev/null 2>&1
GRAIN_TEST_SMALL=1 timeout 560 compute-sanitizer --tool racecheck --error-exitcode 9 \
  .device-carry/tests/grain_contract_tests --gtest_brief=1 > "$OUT/racecheck.log" 2>&1
echo "rc=$?"; tail -5 "$OUT/racecheck.log"
