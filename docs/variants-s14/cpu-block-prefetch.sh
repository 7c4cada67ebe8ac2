for i in 1 2 3 4; do for pf in 0 1; do
GRAIN_BLOCK_PREFETCH=$pf OMP_NUM_THREADS=2 OMP_PROC_BIND=close ./build/host/apps/grain/grain bench contract --backend openmp --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2 --dtype all --algorithm block --reps 10 --json /tmp/pf-$pf-$i.json > /dev/null 2>&1
done; done
python3 - <<'PY'
import json,glob,collections,statistics
t=collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob('/tmp/pf-*.json'):
    pf=f.split('-')[1]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'],r['case'],r['dtype'])][pf].append((r['ms'],r['ms_min']))
for k in sorted(t):
    v=t[k]
    print(*k, ' '.join(f"pf{p}: med {statistics.median(x for x,_ in v[p]):.2f} min {min(y for _,y in v[p]):.2f}" for p in sorted(v)))
PY
