#!/usr/bin/env bash
# Runs on the GPU machine, over .device-carry/ (scripts/device-stage.sh): every test suite on
# every back end, compute-sanitizer memcheck and racecheck over the CUDA tests, then the
# benchmarks. Writes summary.txt and results.tar.gz under $OUT (or ./gpu-results).
#   usage: scripts/device-run.sh [tests|bench|all]   (default all)
set -u
what=${1:-all}
out=${OUT:-gpu-results}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
log="$out/summary.txt"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$log"

if [ "$what" = all ] || [ "$what" = tests ]; then
  for t in "$C"/tests/grain_*_tests; do
    name=$(basename "$t")
    "$t" --gtest_brief=1 > "$out/r/$name.log" 2>&1
    say "TEST $name rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/$name.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$out/r/$name.log" | head -20 | tee -a "$log"
  done
  # Sanitizers over the CUDA instantiations only (the CPU ones are covered by the ASan build).
  # SANITIZE selects suites by name (default: all); SANITIZE_TIMEOUT bounds each run.
  for t in "$C"/tests/grain_*_tests; do
    name=$(basename "$t")
    case "$name" in *${SANITIZE:-}*) ;; *) continue ;; esac
    for tool in memcheck racecheck; do
      timeout "${SANITIZE_TIMEOUT:-240}" compute-sanitizer --tool $tool --error-exitcode 9 "$t" --gtest_brief=1 \
        --gtest_filter='*cuda*:*Cuda*' > "$out/r/$name.$tool.log" 2>&1
      say "SANITIZER $tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$name.$tool.log" | tail -1)"
    done
  done
fi

if [ "$what" = all ] || [ "$what" = bench ]; then
  "$G" info > "$out/r/info.txt" 2>&1; cat "$out/r/info.txt" >> "$log"
  "$G" bench core --backend cuda --reps 30 --json "$out/r/core.json" >> "$log" 2>&1
  say "bench core rc=$?"
  if "$G" help | grep -q "bench contract"; then
    "$G" bench contract --backend cuda --json "$out/r/contract.json" > "$out/r/contract.txt" 2>&1
    say "bench contract rc=$?"; tail -n 60 "$out/r/contract.txt" >> "$log"
    if [ -f bench/torch_einsum.py ]; then
      timeout 300 python3 bench/torch_einsum.py --json "$out/r/torch.json" > "$out/r/torch.txt" 2>&1
      say "torch einsum rc=$?"; tail -n 40 "$out/r/torch.txt" >> "$log"
    fi
  fi
  if "$G" help | grep -q "bench paper"; then
    "$G" bench paper --backend cuda --json "$out/r/paper.json" > "$out/r/paper.txt" 2>&1
    say "bench paper rc=$?"; tail -n 40 "$out/r/paper.txt" >> "$log"
  fi
fi
tar -czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
