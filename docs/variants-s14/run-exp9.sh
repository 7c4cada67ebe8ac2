#!/usr/bin/env bash
# Session 14, run 9: after the review (mma reads the compute capability from the runtime's cached
# device info; the accuracy test restores Auto's choice on every exit). The contract and tuning
# suites, memcheck over the Mma / CUDA tests, and LayoutLeft FieldField Q2-Q4 float `mma` beside
# cuBLAS as a check against run 7.
set -u
C=.device-carry
for t in grain_contract_tests grain_contract_tuning_tests; do
  GRAIN_TEST_SMALL=1 $C/tests/$t --gtest_brief=1 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|FAILED"
  echo "$t rc=${PIPESTATUS[0]}"
done
GRAIN_TEST_SMALL=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*Mma*:*Cuda*:*cuda*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
$C/grain bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 \
  --dtype float --algorithm mma,cublas-strided-batched --json ${OUT:-.}/ff.json > /dev/null 2>&1
echo "bench rc=$?"
python3 - ${OUT:-.}/ff.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))['rows']
t = {}
for r in rows: t.setdefault((r['kernel'], r['case'], r['dtype']), {})[r['algorithm'][:5]] = r['ms']
for k, v in sorted(t.items()): print(*k, f"mma={v['mma']:.3f} cublas={v['cubla']:.3f} ratio={v['cubla']/v['mma']:.2f}")
PY
