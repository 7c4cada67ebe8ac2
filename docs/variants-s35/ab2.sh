#!/bin/bash
# A/B of env settings (each arg "NAME=VAL ...") on LayoutLeft rows
K=${K:-DataFieldScalar,DataFieldVector,DataFieldTensor}
Q=${Q:-Q2,Q4}
for round in $(seq ${ROUNDS:-2}); do
for set in "$@"; do
  env $set OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./build/default/apps/grain/grain bench contract --backend openmp --layout left --kernel $K --case $Q --dtype ${D:-all} --algorithm flat --json /tmp/s35/ab2.json > /dev/null 2>&1
  python3 -c "
import json,sys
d=json.load(open('/tmp/s35/ab2.json'))
print('%-30s'%'$set' + ' '.join('%s%s%s:%.1f/%.0f'%(r['kernel'][4]+r['kernel'][9],r['case'],r['dtype'][0],r['GBps'],r['copy_GBps_local']) for r in d['rows'] if r['algorithm']=='flat'))"
done; done
