#!/usr/bin/env bash
# Session 19, run 2: (1) the pair kernel's machine code as a range launch and as teams (register
# counts, SASS), to find what makes the team launch 5-10% faster (run 1); (2) run 1's hint that
# range launches asking for 2112 bytes of dynamic shared memory run ~1% faster, checked with three
# alternating rounds of the LayoutLeft Data kernels, flat only.
set -u
out=${OUT:-exp2}
mkdir -p "$out/r"
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/summary.txt"
for t in cuobjdump nvdisasm ncu; do echo "$t: $(command -v $t || ls /usr/local/cuda*/bin/$t 2>/dev/null | head -1)"; done | tee -a "$out/summary.txt"
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
if [ -n "$CUOBJ" ]; then
  $CUOBJ --dump-resource-usage $G > "$out/r/resource.txt" 2>&1
  grep -A1 "FlatPair" "$out/r/resource.txt" | tee -a "$out/summary.txt"
  for f in $(grep -o "_ZN[A-Za-z0-9_]*FlatPair[A-Za-z0-9_]*" "$out/r/resource.txt" | sort -u); do
    $CUOBJ -sass -fun "$f" $G > "$out/r/sass-$(echo $f | md5sum | cut -c1-8).txt" 2>&1
    echo "$f -> sass-$(echo $f | md5sum | cut -c1-8).txt" | tee -a "$out/summary.txt"
  done
fi
for round in 1 2 3; do
  for smem in 0 2112; do
    GRAIN_EXP_RANGE_SMEM=$smem timeout 150 $G bench contract --backend cuda \
      --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
      --algorithm flat --layout left --json "$out/r/data-s$smem-r$round.json" > /dev/null 2>&1
    echo "data smem $smem round $round rc=$? $(date +%T)" | tee -a "$out/summary.txt"
  done
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, glob, sys, collections, statistics
d = sys.argv[1]
t = collections.defaultdict(dict)
for f in sorted(glob.glob(d + '/data-*.json')):
    cfg = f.split('/')[-1][5:-5]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'])][cfg] = r['ms']
ratios = []
for k, v in t.items():
    a = [v['s0-r%d' % i] for i in (1, 2, 3) if 's0-r%d' % i in v]
    b = [v['s2112-r%d' % i] for i in (1, 2, 3) if 's2112-r%d' % i in v]
    if a and b:
        ratios.append(statistics.median(b) / statistics.median(a))
        print(' '.join(k), 's0', ' '.join('%.4f' % x for x in a), '| s2112', ' '.join('%.4f' % x for x in b), '| %.3f' % ratios[-1])
print('median ratio s2112/s0 %.4f, faster %d of %d' % (statistics.median(ratios), sum(r < 1 for r in ratios), len(ratios)))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
