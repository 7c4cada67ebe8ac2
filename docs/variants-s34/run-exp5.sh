#!/usr/bin/env bash
# Session 34, run 5 (H100): every GPU suite, the example programs and memcheck / racecheck over
# the examples suite on the final code (after the poisson example's host-memory check).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE=examples SANITIZE_TIMEOUT=300 bash scripts/device-run.sh tests > /dev/null 2>&1
grep -E 'TEST|EXAMPLE|SANITIZER' "$out/summary.txt"
