#!/usr/bin/env bash
# Fuzzes every reader of outside data (fuzz/, docs/testing.md "Fuzzing"): builds the libFuzzer
# targets with clang, AddressSanitizer and UndefinedBehaviorSanitizer in build/fuzz, then runs
# each for a bounded time over its committed seed corpus (fuzz/corpus/<target>/), two at a time,
# with leak detection, a 10 s limit per input and 2 GiB of memory. Prints the executions of each
# target; exits 1 on any crash, sanitizer report, leak, timeout or out-of-memory, with the
# libFuzzer log and the failing input (base64) printed. scripts/test.sh runs it, hence CI.
#
#   bash scripts/fuzz.sh                 # every target
#   bash scripts/fuzz.sh tns cli         # some of them
#   bash scripts/fuzz.sh --check         # exit 0 when clang can build a fuzz target here
#
# GRAIN_FUZZ_SECONDS: seconds per target (default 40: seven targets two at a time fuzz for about
# 2.7 minutes, after a build of about 2 CPU-minutes, so the step stays near 5 minutes on two
# cores). GRAIN_FUZZ_PARALLEL: targets run at once (default 2). GRAIN_FUZZ_CXX: the compiler
# (default clang++). New inputs the fuzzer finds go to build/fuzz/corpus/<target>/, failing
# inputs to build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${GRAIN_FUZZ_CXX:-clang++}
seconds=${GRAIN_FUZZ_SECONDS:-40}
parallel=${GRAIN_FUZZ_PARALLEL:-2}
all_targets=(tns tns_gz binary tuning ktensor checkpoint cli)

# Can this compiler link a fuzz target with both sanitizers? (clang and libclang-rt-14-dev)
check() {
  local dir
  dir=$(mktemp -d)
  printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
    'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }' > "$dir/t.cpp"
  if command -v "$cxx" >/dev/null 2>&1 &&
     "$cxx" -fsanitize=fuzzer,address,undefined "$dir/t.cpp" -o "$dir/t" >/dev/null 2>&1; then
    rm -rf "$dir"
    return 0
  fi
  rm -rf "$dir"
  echo "grain: $cxx with libFuzzer, ASan and UBSan is not available (Debian: clang, libclang-rt-14-dev)"
  return 1
}
if [ "${1:-}" = "--check" ]; then
  check
  exit
fi
check

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
start=$(date +%s)
echo "+ cmake -S fuzz -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=$cxx"
cmake -S fuzz -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE= >/dev/null
echo "+ cmake --build build/fuzz"
cmake --build build/fuzz -j "${GRAIN_JOBS:-$(nproc)}" -- $(printf 'fuzz_%s ' "${targets[@]}")
built=$(date +%s)

logs=build/fuzz/logs
rm -rf "$logs" build/fuzz/artifacts
mkdir -p "$logs" build/fuzz/artifacts
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target: its own corpus under build/ first (where new inputs go), the committed seeds second.
fuzz_one() {
  local t=$1 dict=() rc=0
  mkdir -p "build/fuzz/corpus/$t"
  [ ! -f "fuzz/$t.dict" ] || dict=("-dict=fuzz/$t.dict")
  "build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" "${dict[@]}" \
    "build/fuzz/corpus/$t" "fuzz/corpus/$t" > "$logs/$t.log" 2>&1 || rc=$?
  echo "$rc" > "$logs/$t.rc"
}

echo "+ fuzzing ${targets[*]}: ${seconds} s each, $parallel at a time"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait || true

status=0 total_execs=0
for t in "${targets[@]}"; do
  rc=$(cat "$logs/$t.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
  total_execs=$((total_execs + ${execs:-0}))
  cov=$(grep -oE 'cov: [0-9]+' "$logs/$t.log" | tail -1 || true)
  if [ "$rc" = 0 ]; then
    printf 'fuzz %-8s ok      %10s executions  %s\n' "$t" "${execs:-?}" "$cov"
  else
    status=1
    printf 'fuzz %-8s FAILED  (exit %s)\n' "$t" "$rc"
    echo "---- libFuzzer log of $t (last 80 lines) ----"
    tail -80 "$logs/$t.log"
    for f in build/fuzz/artifacts/"$t"-*; do
      [ -f "$f" ] || continue
      echo "---- failing input $f, base64 (reproduce: build/fuzz/fuzz_$t FILE) ----"
      head -c 65536 "$f" | base64
    done
  fi
done
end=$(date +%s)
echo "fuzz: ${#targets[@]} targets, $total_execs executions, $([ $status = 0 ] && echo "no findings" || echo "FINDINGS (above)");" \
     "build $((built - start)) s, fuzzing $((end - built)) s, total $((end - start)) s"
exit $status
