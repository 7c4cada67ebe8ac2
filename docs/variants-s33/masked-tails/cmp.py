import json,sys,glob
pre=sys.argv[1]; rounds=int(sys.argv[2]) if len(sys.argv)>2 else 2
res={}
for b in ['old','new']:
  for r in range(1,rounds+1):
    d=json.load(open(f'/tmp/{pre}-{b}-{r}.json'))
    for row in d['rows']:
      if row['algorithm'] in ('auto',) and 'flat' not in sys.argv: pass
      k=(row['kernel'],row['case'],row['dtype'],row['algorithm'])
      res.setdefault(k,{}).setdefault(b,[]).append((row['ms'],row.get('roofline_local') or 0))
for k,v in sorted(res.items()):
  o=v.get('old',[]); n=v.get('new',[])
  if not o or not n: continue
  ratio=min(x[0] for x in o)/min(x[0] for x in n)
  print('%-16s %s %-6s %-12s old %s new %s  old/new %.2f'%(k[0],k[1],k[2],k[3],' '.join('%.2f(%.2f)'%x for x in o),' '.join('%.2f(%.2f)'%x for x in n),ratio))
