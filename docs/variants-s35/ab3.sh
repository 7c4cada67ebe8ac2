#!/bin/bash
# A/B of env settings on the rows given by K, Q, A, LAYOUT
for round in $(seq ${ROUNDS:-2}); do
for set in "$@"; do
  env $set OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./build/default/apps/grain/grain bench contract --backend openmp --layout ${LAYOUT:-right} --kernel $K --case $Q --dtype ${D:-all} --algorithm $A --json /tmp/s35/ab3.json > /dev/null 2>&1
  python3 -c "
import json,sys
d=json.load(open('/tmp/s35/ab3.json'))
print('%-22s'%'$set' + ' '.join('%s%s%s:%.1f/%.0f'%(r['kernel'][0]+r['kernel'][4]+r['kernel'][9],r['case'],r['dtype'][0],r['GBps'],r['copy_GBps_local']) for r in d['rows'] if r['algorithm']=='$A'))"
done; done
