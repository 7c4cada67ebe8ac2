#!/usr/bin/env bash
# Session 8, runs 4+: mma with packed 16-byte operands (configurations 5-7) against the cp.async
# default (1) on FieldField Q2-Q4, with cuBLAS; two alternating rounds; then the mma tests.
set -u
G=.exp/pk/grain; o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
.exp/pk/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure|expected" | head -8
$G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
  --case Q2,Q3,Q4 --algorithm cublas-strided-batched --no-verify --reps 10 --json $o/cublas.json > /dev/null 2>&1
for round in a b; do for sh in ${SHAPES:-1 5 6 7}; do
  GRAIN_MMA_SHAPE=$sh $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2,Q3,Q4 --algorithm mma --no-verify --reps 10 --json $o/s$sh$round.json > /dev/null 2>&1
done; done
python3 - "$o" ${SHAPES:-1 5 6 7} <<'PY'
import json, sys
o = sys.argv[1]; shapes = sys.argv[2:]
t = {}
for r in json.load(open(f'{o}/cublas.json'))['rows']:
    t.setdefault((r['kernel'], r['case'], r['dtype']), {})['cublas'] = r['ms']
    t[(r['kernel'], r['case'], r['dtype'])]['C'] = r['C']
for sh in shapes:
    for rd in 'ab':
        for r in json.load(open(f'{o}/s{sh}{rd}.json'))['rows']:
            d = t.setdefault((r['kernel'], r['case'], r['dtype']), {})
            d[sh] = min(d.get(sh, 1e9), r['ms'])
print('%-17s %-3s %-6s %6s %7s ' % ('kernel', 'case', 'dtype', 'C', 'cublas') + ' '.join('%7s' % ('s' + s) for s in shapes) + '   best/cublas')
for k, v in sorted(t.items()):
    best = min(v[s] for s in shapes)
    print('%-17s %-3s %-6s %6d %7.3f ' % (k + (v['C'], v['cublas'])) + ' '.join('%7.3f' % v[s] for s in shapes) + '   %.2f' % (v['cublas'] / best))
PY
