#!/usr/bin/env bash
# Session 17, run 2: why the staged cells' four-fields path (GRAIN_TSK_QUADS=1) was faster at
# FieldFieldScalar Q1 float and 1.5-2x slower at K >= 24 (run 1): Nsight Compute on both forms;
# then LayoutLeft DataField Q3/Q4 with team-small-k's slices x loads in flight
# (GRAIN_TSK_SLICES x GRAIN_TSK_LEFT_A) beside flat, two rounds. Everything lands in one tarball.
set -u
out=${OUT:-exp2}
mkdir -p "$out/r/ncu"
G=.device-carry/grain
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
prof() {  # name quads kernel dtype
  GRAIN_TSK_QUADS=$2 timeout 150 ncu --clock-control none $S --kernel-name-base mangled --kernel-name regex:CellBlocks --launch-count 1 \
    $G bench contract --backend cuda --layout right --reps 1 --algorithm team-small-k --kernel $3 --case Q1 --dtype $4 \
    > $out/r/ncu/$1.txt 2>&1
  echo "== $1 rc=$?"
}
prof ffs-f-q0 0 FieldFieldScalar float
prof ffs-f-q1 1 FieldFieldScalar float
prof ffv-f-q0 0 FieldFieldVector float
prof ffv-f-q1 1 FieldFieldVector float
GRAIN_TSK_QUADS=1 timeout 200 ncu --clock-control none --set full --import-source no --kernel-name-base mangled --kernel-name regex:CellBlocks \
  --launch-count 1 --page source --print-source sass --csv \
  $G bench contract --backend cuda --layout right --reps 1 --algorithm team-small-k --kernel FieldFieldVector --case Q1 --dtype float \
  > $out/r/ncu/ffv-f-q1-source.csv 2>&1
echo "== source rc=$?"
for f in $out/r/ncu/*.txt; do
  echo "##### $f"
  grep -E "Duration|Throughput|Bank|Wavefronts|Registers|Theoretical Occ|Achieved Occ|Block Limit|Stall|Warp Cycles|Issued Warp|No Eligible|Active Warps|Eligible Warps|Shared Memory Configuration|Dynamic Shared" $f | awk '{$1=$1};1' | head -45
done
for round in 1 2; do
  for sa in 8x2 2x8 4x4 2x4 4x8 1x8; do
    s=${sa%x*}; a=${sa#*x}
    GRAIN_TSK_SLICES=$s GRAIN_TSK_LEFT_A=$a timeout 120 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor \
      --case Q3,Q4 --algorithm flat,team-small-k --layout left --json $out/r/b-$sa-r$round.json > $out/r/b-$sa-r$round.txt 2>&1
    echo "b $sa round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/b-*.json')):
    cfg = f.split('/b-')[1].split('-r')[0]
    for r in json.load(open(f))['rows']:
        name = 'flat' if r['algorithm'] == 'flat' else 'tsk ' + cfg
        t[(r['kernel'], r['case'], r['dtype'], name)].append(r['ms'])
for k in sorted(t):
    print(*k, ' '.join('%.4f' % v for v in t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
