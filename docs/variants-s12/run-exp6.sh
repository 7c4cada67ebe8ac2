#!/usr/bin/env bash
# Session 12, run 6: run 5 found mma's copied kernel bound by the fabric between the H100's two
# L2 partitions (lts__ltcfabric2ltc_cycles_active 95.6% at FieldFieldScalar Q3 double; DRAM
# bytes equal to the unique bytes). Test: launch the blocks in thread-block clusters of N
# (GRAIN_MMA_CLUSTER=N), so the tiles of a cell group (consecutive blocks, reading the same
# rows) run in one GPC. LayoutLeft FieldField Q2-Q4, both types, N = 1, 2, 4, 8, 16, two rounds;
# then the L2 metrics of FieldFieldScalar Q3 double at N = 1 and 4.
set -u
out=${OUT:-exp5}
mkdir -p "$out/r"
G=.device-carry/grain
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
for round in 1 2; do
  for n in 1 2 4 8 16; do
    algs=mma; [ $n = 1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_CLUSTER=$n "$G" bench contract --backend cuda --kernel $K --case Q2,Q3,Q4 --dtype all --algorithm $algs \
      --json "$out/r/n$n-r$round.json" > "$out/r/n$n-r$round.txt" 2>&1
    echo "cluster $n round $round rc=$?"
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
M=lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum
for n in 1 4; do
  GRAIN_MMA_CLUSTER=$n timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:contract_mma --launch-count 1 \
    $G bench contract --backend cuda --layout left --reps 1 --algorithm mma --kernel FieldFieldScalar --case Q3 --dtype double \
    > $out/r/ncu-n$n.txt 2>&1
  echo "== ncu cluster $n rc=$?"; grep -E "^\s+(lts|dram|gpu)__" $out/r/ncu-n$n.txt | awk '{$1=$1};1'
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
