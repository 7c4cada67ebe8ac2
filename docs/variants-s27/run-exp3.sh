#!/usr/bin/env bash
# Session 27, run 3: the cell tiles with rows staged a row per group of threads, unit offsets
# hoisted out of the passes: the cell-tile tests with memcheck and racecheck, LayoutRight Q2 beside
# cuBLAS (the rule's shape, twice), and Nsight Compute over FieldFieldScalar Q2 float with its
# per-instruction counts (source page, SASS) and the kernel's SASS.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
source docs/variants-s26/tiles-check.sh
show() { python3 -c "import json,sys; [print(sys.argv[2],r['kernel'],r['dtype'],r['algorithm'],'%.3f'%r['ms'],'%.3f'%r['roofline'],r['verified']) for r in json.load(open(sys.argv[1]))['rows'] if r['kernel'].startswith('FieldField')]" "$1" "$2" | tee -a "$out/summary.txt"; }
i=0
for v in ${VARIANTS:-- -}; do
  i=$((i+1))
  [ "$v" = - ] && v=""
  GRAIN_CELL_TILES="$v" .device-carry/grain bench contract --backend cuda --kernel all --case Q2 --dtype all --layout right \
    --algorithm team-small-k,cublas-strided-batched --json "$out/r/q2-$i.json" > "$out/r/q2-$i.txt" 2>&1
  echo "bench $i [$v] rc=$?" | tee -a "$out/summary.txt"
  show "$out/r/q2-$i.json" "[$v]"
done
timeout 150 ncu --clock-control none --set full --import-source no --kernel-name-base demangled --kernel-name regex:'CellTiles' \
  --launch-skip 1 --launch-count 1 -o "$out/r/ffs" -f .device-carry/grain bench contract --backend cuda --layout right --reps 2 \
  --algorithm team-small-k --kernel FieldFieldScalar --case Q2 --dtype float > "$out/r/ncu-run.txt" 2>&1
echo "== ncu rc=$?" | tee -a "$out/summary.txt"
ncu --import "$out/r/ffs.ncu-rep" --page details > "$out/r/ncu-details.txt" 2>&1
grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Instructions  |highest-utilized|Bank" "$out/r/ncu-details.txt" | head -20 | tee -a "$out/summary.txt"
ncu --import "$out/r/ffs.ncu-rep" --page source --print-source sass --csv > "$out/r/ncu-sass.csv" 2> "$out/r/ncu-sass.err"
echo "source page rc=$? lines $(wc -l < "$out/r/ncu-sass.csv")" | tee -a "$out/summary.txt"
cuobjdump -sass -fun regex:CellTiles .device-carry/grain > "$out/r/sass.txt" 2>&1 || cuobjdump -sass .device-carry/grain 2>/dev/null | awk '/Function : .*CellTiles/,/\.\.\.\.\.\.\.\.\.\./' > "$out/r/sass.txt"
echo "sass lines $(wc -l < "$out/r/sass.txt")" | tee -a "$out/summary.txt"
rm -f "$out/r/ffs.ncu-rep.bak"
cd "$out" && tar czf ${TAG:-run3}-data.tar.gz r && rm -rf r
