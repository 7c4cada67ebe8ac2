#!/usr/bin/env bash
# Session 15, run 3: the final binaries. Every GPU test suite on the H100 and memcheck
# over the contract suite's CUDA tests; LayoutRight FieldField Q1 on the GPU with the binary
# before (old) and after (new) team-small-k's swapped pack order for 2-pack rows, three rounds
# alternating; the CPU DataField suite on 2 Xeon threads, x86-64-v3 builds before (old) and
# after (new) `flat`'s one-field-at-a-time rows, two rounds alternating. One tarball.
set -u
out=${OUT:-exp3}
mkdir -p "$out/x"
C=.device-carry
[ -f $C/grain-gpu-old.xz ] && xz -d -k -f $C/grain-gpu-old.xz
for t in grain_contract_tests grain_contract_tuning_tests grain_core_tests grain_cp_tests grain_examples_tests grain_sparse_tests; do
  GRAIN_TEST_SMALL=1 $C/tests/$t --gtest_brief=1 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|FAILED"
  echo "$t rc=${PIPESTATUS[0]}"
done
GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
for round in 1 2 3; do
  for v in old new; do
    b=$C/grain; [ $v = old ] && b=$C/grain-gpu-old
    $b bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q1 --dtype all \
      --layout right --algorithm team-small-k --json "$out/x/gpu-$v-$round.json" > "$out/x/gpu-$v-$round.txt" 2>&1
    echo "gpu $v round $round rc=$?"
  done
done
for v in old new; do [ -f $C/grain-cpu-v3-$v.xz ] && xz -d -k -f $C/grain-cpu-v3-$v.xz; done
for round in 1 2; do
  for k in DataFieldScalar DataFieldVector DataFieldTensor; do
    for v in old new; do
      OMP_NUM_THREADS=2 OMP_PROC_BIND=true timeout 60 stdbuf -oL $C/grain-cpu-v3-$v bench contract --backend openmp \
        --kernel $k --case all --dtype all --algorithm flat,slice --reps 5 \
        --json "$out/x/xeon-$v-$k-$round.json" > "$out/x/xeon-$v-$k-$round.txt" 2>&1
      echo "xeon $v $k round $round rc=$?"
    done
  done
done
tar czf "$out/run3.tar.gz" -C "$out" x && rm -rf "$out/x"
