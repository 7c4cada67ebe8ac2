#!/usr/bin/env bash
# Session 20, run 1 (the only GPU call: 650 s of device time were left after the cut-off try's
# runs 9-10, whose results were lost with it). Over .device-carry/ (scripts/device-stage.sh) plus
# .device-carry/grain-old, the grain tool built from commit 902e0d8 (before the change):
#   1. the contract tests' CUDA instantiations (team-small-k's new two-group float kernel included);
#   2. LayoutLeft DataFieldTensor Q4 float, team-small-k and flat, old binary against new, at the
#      suite's 512 MiB (69000 outputs) and 384 MiB (51750), three alternating rounds;
#   3. the kernels' register counts (cuobjdump), memcheck and racecheck over the team-small-k tests;
#   4. the LayoutLeft float DataField cases with every GPU algorithm (Auto's pick marked);
#   5. the other test suites' CUDA instantiations (the host ones run in CI).
set -u
out=${OUT:-exp1}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
log="$out/summary.txt"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a "$log"
t=$C/tests/grain_contract_tests
timeout 120 $t --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/contract-tests.log" 2>&1
say "TEST grain_contract_tests rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/contract-tests.log" | tr '\n' ' ') $(date +%T)"
grep -E '^\[  FAILED  \]' "$out/r/contract-tests.log" | head -10 | tee -a "$log"
for round in 1 2 3; do
  for mib in 512 384; do
    for b in grain-old grain; do
      timeout 40 $C/$b bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype float \
        --algorithm team-small-k,flat --layout left --budget-mib $mib --json "$out/r/m$mib-$b-r$round.json" > /dev/null 2>&1
    done
  done
  say "round $round $(date +%T)"
done
python3 - "$out/r" <<'PY' | tee -a "$log"
import json, glob, sys, collections, statistics
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/m*-r[0-9].json')):
    cfg = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[cfg + ':' + r['algorithm'] + ' C=%d' % r['C']].append((r['ms'], r['roofline']))
for c, v in sorted(t.items()):
    print('%-40s %s  median %.4f' % (c, ' '.join('%.4f(%.3f)' % x for x in v), statistics.median(x[0] for x in v)))
PY
cuobjdump --dump-resource-usage $G 2>/dev/null | grep -A1 'ContractTeamSmallKCellsKernelIf' | grep -oE 'ContractTeamSmallKCellsKernelIfLi[0-9]+ELi[0-9]+ELi[0-9]+E|REG:[0-9]+' | paste - - | sort | uniq | tee -a "$log"
F='Contract_KSlicesLayoutLeft/cuda.*:Contract_DataField*/cuda.*'
for tool in memcheck racecheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 $t --gtest_brief=1 --gtest_filter="$F" > "$out/r/$tool.log" 2>&1
  say "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool.log" | tail -1) $(grep -E '^\[  PASSED' "$out/r/$tool.log") $(date +%T)"
done
timeout 90 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor --dtype float --layout left \
  --algorithm flat,tile,block,blas,mma,team-small-k,team-stride --json "$out/datafield-float-left.json" > "$out/r/datafield-float-left.txt" 2>&1
say "bench DataField float left rc=$? $(date +%T)"; tail -n 16 "$out/r/datafield-float-left.txt" >> "$log"
for t in $C/tests/grain_*_tests; do
  case $t in *grain_contract_tests) continue ;; esac
  timeout 40 $t --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/$(basename $t).log" 2>&1
  say "TEST $(basename $t) rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/$(basename $t).log" | tr '\n' ' ') $(date +%T)"
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
