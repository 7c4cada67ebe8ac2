#!/usr/bin/env bash
# One contraction figure set (issue 4), drawn by bench/plot.py (needs matplotlib): time per
# algorithm per case from the suite files, and the study's speedup-over-serial heat maps (best
# algorithm, P x memory budget) of DataDataScalar, DataFieldScalar and FieldFieldScalar from the
# sweep. plot.py's messages go to LOG (default: DIR/plot.txt); prints the number of PNGs.
#   usage: scripts/contract-figures.sh DIR PREFIX SWEEP.json SUITE.json...
set -u
[ $# -ge 4 ] || { echo "usage: $0 DIR PREFIX SWEEP.json SUITE.json..." >&2; exit 2; }
dir=$1 prefix=$2 sweep=$3
shift 3
mkdir -p "$dir"
log=${LOG:-$dir/plot.txt}
python3 bench/plot.py contract "$@" --out-dir "$dir" --prefix "$prefix" >> "$log" 2>&1
for k in DataDataScalar DataFieldScalar FieldFieldScalar; do
  for d in float double; do  # the sweep's dtype has the rows; the other says so in the log
    python3 bench/plot.py heatmap "$sweep" --kernel $k --dtype $d --x P --y budget_MiB --speedup-over serial \
      --of best --out "$dir/${prefix}_${k}_${d}_speedup_best.png" >> "$log" 2>&1
  done
done
echo "figures $prefix: $(ls "$dir"/*.png 2>/dev/null | wc -l) PNG files"
