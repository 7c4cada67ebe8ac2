#!/bin/bash
# Runs the A/B pair (ab2.sh, one round) only when the probe copy says fast phase; up to N pairs or T seconds.
end=$((SECONDS + ${T:-900})); got=0
while [ $SECONDS -lt $end ] && [ $got -lt ${N:-4} ]; do
  c=$(OMP_NUM_THREADS=2 ${PROBE:-./probe})
  if [ "$c" -gt 60 ]; then ROUNDS=1 ${AB2:-docs/variants-s35/ab2.sh} "$@"; got=$((got+1)); else sleep 5; fi
done
