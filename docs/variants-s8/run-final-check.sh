#!/usr/bin/env bash
# Session 8, run 11: the final binaries: every GPU test suite with compute-sanitizer on the
# contract suite; FieldField Q2-Q4 (Auto's mma and cuBLAS) to compare with run 8; and
# LayoutRight DataDataScalar Q1 double (flat, team-small-k), run 8's outlier, three rounds.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
OUT=$o/t GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=200 bash scripts/device-run.sh tests > /dev/null 2>&1
grep -E "^TEST|^SANITIZER" $o/t/summary.txt
grep -h "mma float" $o/t/r/grain_contract_tests.log 2>/dev/null
mkdir -p $o/r && (cd $o/t && tar xzf results.tar.gz 2>/dev/null; grep -h "mma float" r/grain_contract_tests.log; rm -f results.tar.gz)
G=.device-carry/grain
$G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 \
  --algorithm mma,cublas-strided-batched --json $o/ff.json > $o/ff.txt 2>&1
for rd in a b c; do
  $G bench contract --backend cuda --layout right --kernel DataDataScalar --case Q1 --dtype double \
    --algorithm flat,team-small-k --json $o/dds-right-$rd.json > /dev/null 2>&1
done
python3 - "$o" <<'PY'
import json, sys
o = sys.argv[1]
for rd in 'abc':
    for r in json.load(open(f'{o}/dds-right-{rd}.json'))['rows']:
        print('DataDataScalar Q1 double right', rd, r['algorithm'], round(r['ms'], 3), 'roofline', round(r['roofline'], 2), '*auto' if r.get('selected') else '')
PY
