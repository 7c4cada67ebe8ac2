#!/usr/bin/env bash
# Session 14, run 3: the packed TMA path with 3 stages in flight (GRAIN_WGMMA_LEAD=3: 3 raw buffers,
# each refilled as soon as the barrier after its split passes) against 2 (the default), on the
# three suite cases that take it (FieldFieldScalar Q3, FieldFieldTensor Q3 / Q4 float, LayoutLeft)
# at four budgets (so four cell counts, and different last rounds of blocks), two rounds each;
# then the mma tests with lead 3.
set -u
out=${OUT:-exp3}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
for round in 1 2; do
  for b in 256 384 512 768; do
    for lead in 0 3; do
      GRAIN_WGMMA_LEAD=$lead "$G" bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldTensor \
        --case Q3,Q4 --dtype float --algorithm mma --budget-mib $b --json "$out/r/b$b-l$lead-r$round.json" \
        > "$out/r/b$b-l$lead-r$round.txt" 2>&1
      echo "budget $b lead $lead round $round rc=$?"
    done
  done
done
GRAIN_WGMMA_LEAD=3 GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_filter='*Mma*' 2>&1 | grep -E "PASSED|FAILED"
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    b, lead, _ = os.path.basename(f)[:-5].split('-')
    for r in json.load(open(f))['rows']:
        if r['kernel'] == 'FieldFieldScalar' and r['case'] == 'Q4': continue
        t[(r['kernel'], r['case'], int(b[1:]), r['C'])][lead].append(r['ms'])
for k in sorted(t):
    v = t[k]
    print(*k, ' '.join(f"{l}=" + '/'.join(f'{x:.3f}' for x in v[l]) for l in sorted(v)),
          f"lead3/lead2={min(v['l3'])/min(v['l0']):.3f}")
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
