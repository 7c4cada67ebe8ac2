#!/usr/bin/env bash
# Session 13, run 3: the wgmma float kernel with the left operand in registers (wgmma RS): right
# rows split into shared memory, left rows copied raw and split per fragment; shapes 8 (3 raw
# left stages) and 9 (4). First the mma tests (every shape, C = 37 / 42 / 44: 4-, 8- and 16-byte loads) and
# memcheck over them; then LayoutLeft FieldField Q2-Q4 float: the default choice, 8, 9 and cuBLAS,
# two rounds; then Nsight Compute on FieldFieldTensor Q4 float, shape 9.
set -u
out=${OUT:-exp3}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_filter='*Mma*' > "$out/r/tests-mma.txt" 2>&1
echo "mma tests rc=$?"; grep -E "FAILED|PASSED|Failure|expected|shape" "$out/r/tests-mma.txt" | head -40
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' "$out/r/memcheck.txt")"
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
for round in 1 2; do
  for s in -1 8 9; do
    algs=mma; [ $s = -1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_SHAPE=$s "$G" bench contract --backend cuda --kernel $K --case Q2,Q3,Q4 --dtype float --algorithm $algs \
      --json "$out/r/s$s-r$round.json" > "$out/r/s$s-r$round.txt" 2>&1
    echo "shape $s round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = os.path.basename(f)[:-5]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'], r['C'])][tag + ':' + r['algorithm'][:5] + ('' if r['verified'] else '!U')] = r['ms']
for k in sorted(t):
    print(*k, ' '.join(f'{a}={v:.3f}' for a, v in sorted(t[k].items())))
PY
ST=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__inst_executed.sum
for kc in "FieldFieldTensor Q4" "FieldFieldScalar Q4"; do
  set -- $kc
  GRAIN_MMA_SHAPE=8 timeout 120 ncu --clock-control none --section SpeedOfLight --metrics $ST \
    --kernel-name regex:wgmma --launch-count 1 \
    $G bench contract --backend cuda --layout left --reps 1 --algorithm mma --kernel $1 --case $2 --dtype float \
    > $out/r/ncu-$1-$2.txt 2>&1
  echo "== ncu $1 $2 rc=$?"; grep -E "Duration|Throughput|smsp__|l1tex__" $out/r/ncu-$1-$2.txt | awk '{$1=$1};1' | head -30
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
