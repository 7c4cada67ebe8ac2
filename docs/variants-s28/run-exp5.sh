#!/usr/bin/env bash
# Session 28, run 5 (H100), run 4's binaries: `flat` on every LayoutLeft Data kernel in float,
# Q1-Q4, under the temporary knobs: the rule (base), 2 steps of K ahead (a2), 2-cell packs where
# the cells allow them (p2), both (p2a2); two alternating rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
for round in 1 2; do
  for v in base a2 p2 p2a2; do
    envs=""
    case $v in
      a2) envs="GRAIN_TMP_FLAT_AHEAD=2" ;; p2) envs="GRAIN_TMP_FLAT_PACK=2" ;;
      p2a2) envs="GRAIN_TMP_FLAT_PACK=2 GRAIN_TMP_FLAT_AHEAD=2" ;;
    esac
    env $envs timeout 200 "$G" bench contract --backend cuda --layout left \
      --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
      --case all --dtype float --algorithm flat --json "$out/r/data-$v-$round.json" > "$out/r/data-$v-$round.txt" 2>&1
    echo "flat $v round $round rc=$?" | tee -a "$out/summary.txt"
  done
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, sys, glob, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + "/data-*.json")):
    v = f.split("/data-")[1].rsplit("-", 1)[0]
    for r in json.load(open(f))["rows"]:
        t[(r["kernel"], r["case"])][v].append(r["roofline"])
print("kernel case C: roofline per variant (rounds)")
for k, d in t.items():
    print(k[0], k[1], " | ".join("%s %s" % (v, " ".join("%.3f" % x for x in d[v])) for v in ("base", "a2", "p2", "p2a2")))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
