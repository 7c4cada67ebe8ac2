#!/usr/bin/env bash
# Waits for a fast memory phase (2-thread read > 65 GB/s), then times FieldFieldTensor Q1 float
# (LayoutLeft, block) under the knob build's variants, alternating orders, with reads between.
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true
log=/tmp/s34/phase-watch.log
rounds=0
end=$(( $(date +%s) + ${1:-2700} ))
variants=("base:" "t0:GRAIN_TMP_PFH=3" "ahead512:GRAIN_TMP_AHEAD=512" "ahead512t0:GRAIN_TMP_AHEAD=512 GRAIN_TMP_PFH=3" "pfk2:GRAIN_TMP_PFK=2" "order:GRAIN_TMP_ORDER=1" "g4:GRAIN_TMP_GMAX=4" "base2:")
while [ $(date +%s) -lt $end ] && [ $rounds -lt 4 ]; do
  r=$(/tmp/rd | tail -1)
  rate=$(echo "$r" | awk '{print $2}')
  if awk "BEGIN{exit !($rate > 65)}"; then
    echo "$(date +%T) FAST $r" >> $log
    if [ $((rounds % 2)) -eq 0 ]; then order=(0 1 2 3 4 5 6 7); else order=(7 6 5 4 3 2 1 0); fi
    for i in "${order[@]}"; do
      v=${variants[$i]}; name=${v%%:*}; envs=${v#*:}
      res=$(env $envs /tmp/ll-knob t 1 f 20 | sed 's/.*median/median/')
      echo "$(date +%T) $name $res" >> $log
    done
    echo "$(date +%T) after $(/tmp/rd | tail -1)" >> $log
    rounds=$((rounds + 1))
  else
    echo "$(date +%T) slow $r" >> $log
    sleep 30
  fi
done
echo "$(date +%T) done" >> $log
