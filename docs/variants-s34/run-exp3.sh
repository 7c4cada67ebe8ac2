#!/usr/bin/env bash
# Session 34, run 3 (H100): every GPU suite and the example programs after the review commit
# (memcheck and racecheck over the examples suite); both contraction suites (every algorithm Auto considers on the GPU,
# cuBLAS beside them) and torch.einsum in both layouts, on the final code; the tables that
# compare them (scripts/device-run.sh ff).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE=examples SANITIZE_TIMEOUT=300 bash scripts/device-run.sh tests ff > /dev/null 2>&1
# The JSON files and tables are in results.tar.gz (r/ff-{left,right}.json, r/torch.json,
# r/table-{left,right}.md).
grep -E 'rc=|TEST|EXAMPLE|SANITIZER' "$out/summary.txt"
