import json,sys
d=json.load(open(sys.argv[1]))
rows=d['rows']
by={}
for r in rows: by.setdefault((r['kernel'],r['case'],r['dtype']),[]).append(r)
bw_ok=bw_n=0; low=[]; ff=[]; autobest=[]
for k,rs in sorted(by.items()):
  auto=[r for r in rs if r.get('selected')] or [r for r in rs if r['algorithm']=='auto']
  if not auto: continue
  a=auto[0]
  algs=[r for r in rs if r['algorithm'] not in ('auto','openblas-gemm','cublas-strided-batched') and r.get('verified',True)]
  best=min(algs,key=lambda r:r['ms']) if algs else None
  if best: autobest.append((a['ms']/best['ms'],k,best['algorithm']))
  bwbound = k[0].startswith('Data') or k[1]=='Q1'
  if bwbound:
    bw_n+=1; rl=a.get('roofline_local') or a['roofline']
    if rl>=0.7: bw_ok+=1
    else: low.append((k,round(rl,3),round(a['GBps'],1),round(a.get('copy_GBps_local') or 0,1)))
  if k[0].startswith('FieldField'):
    peer=[r for r in rs if r['algorithm']=='openblas-gemm']
    if peer: ff.append((k,round(peer[0]['ms']/a['ms'],2)))
print('copy',round(d['copy_GBps'],1),'bandwidth-bound >=0.7:',bw_ok,'of',bw_n)
for l in low: print('  below:',l)
print('FF peer/auto: ahead',sum(1 for x in ff if x[1]>1),'of',len(ff),'range',min(x[1] for x in ff) if ff else None,max(x[1] for x in ff) if ff else None)
for x in ff:
  if x[1]<=1: print('  behind:',x)
w=[x for x in autobest if x[0]>1.1]
print('auto within 10% of best:',len(autobest)-len(w),'of',len(autobest))
for x in w: print('  auto slower:',x)
print('unverified:',[ (r['kernel'],r['case'],r['dtype'],r['algorithm']) for r in rows if not r.get('verified',True)][:10])
