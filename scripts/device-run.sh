#!/usr/bin/env bash
# Runs on the GPU machine, over .device-carry/ (scripts/device-stage.sh): the test suites, the
# benchmarks, or both. Writes summary.txt and results.tar.gz under $OUT (or ./gpu-results).
#   usage: scripts/device-run.sh [tests|ff|cp|bench|figures|cpu-contract|all]...   (default all)
#     tests: every suite on every back end, the example programs, then compute-sanitizer memcheck
#            and racecheck over the CUDA tests (SANITIZE* variables below)
#     ff: the contraction suite, Auto's candidates on the GPU beside cuBLAS, in the layouts of
#         LAYOUTS (default "left right"), and torch.einsum in both (TORCH=0 skips it)
#     cp: MTTKRP and CP-ALS on Genten's tensors (GPU), the 1M-nonzero tensor on 2 CPU threads,
#         and the .tns read rate
#     bench: the core (triad, dot) and the paper's kernels against hand-written code
#     figures: the contraction sweep on the GPU (sweep-gpu.json, for scripts/docs-figures.sh)
#     cpu-contract: the contraction suite on 2 host threads (x86-64-v3 build, OpenBLAS peer)
#     heldout: Auto on random held-out shapes (`bench contract --shapes random`), seeds SEEDS
#              (default "1 2"), COUNT shapes (default 100) at BUDGET MiB (default 128), in the
#              layouts of LAYOUTS
#     gcp: GCP-SGD on the 10M-count tensor (GPU; 2 CPU threads), its MTTKRP beside it, Poisson
#          against Gaussian on a skewed count tensor (gcp-*.json for bench/plot.py gcp), and
#          cp-als --starts 4 against four separate runs
#     dist: CP-ALS under mpirun with 2 ranks on the one GPU against one rank, the dist suite, and
#           one GPU's iteration beside the previous build's (.device-carry/grain-before, if staged)
#     gpus: CP-ALS across this machine's GPUs (a 2- or 4-GPU kind): tests/dist/gpus.sh and the
#           dist suite with --gpu under mpirun (GPU_TESTS=0 skips them), compute-sanitizer memcheck
#           over the suite's NCCL collectives, then strong scaling (one GPU against all of them,
#           --gpus) on the SCALE tensors ("kind:dims" words; default a 3-way and a 4-way random
#           Ktensor and a skewed 3-way) of SCALE_NNZ nonzeros (500M), ranks SCALE_RANKS (16 64)
#     cpu-ranks: CP-ALS on this machine's CPU, P ranks of 1 thread (mpirun, a core each) against
#                one rank of P threads (the same cores), P in CPU_RANKS (2 4), on the 1M-nonzero
#                tensor at R 16 and 64, alternated CPU_REPS times (3)
#     auto-before: Auto on the Q1-Q4 cases, both layouts, this build against the previous one
#                  (.device-carry/grain-before), alternated AUTO_REPS times (2); the per-case ratio's spread
#     python: the Python package installed with pip as a user does (built here, with CUDA), its
#             tests, its per-call overhead beside C++, grain.cp_als beside the tool and beside a
#             natural PyTorch CP-ALS (not part of all)
set -u
what=" ${*:-all} "
has() { case "$what" in *" $1 "*|*" all "*) return 0 ;; esac; return 1; }
out=${OUT:-gpu-results}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
# scripts/device-stage.sh ships the binaries compressed.
bash scripts/device-unpack.sh
log="$out/summary.txt"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$log"

if case "$what" in *" python "*) true ;; *) false ;; esac; then
  # pip into the virtual environment that python3 is here (it has NumPy, PyTorch, CuPy and
  # pybind11); LAPACK and DLPack's header from .device-carry (the machine has neither).
  lap=$PWD/$C/lapack
  export LD_LIBRARY_PATH=$lap${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  py=$(command -v python3)
  t0=$(date +%s)
  # The system's g++ (CXX here names one that links libstdc++ statically, which an extension
  # module must not: its iostreams are then never set up and the first formatted message crashes).
  CXX=/usr/bin/g++ CC=/usr/bin/gcc CUDAHOSTCXX=/usr/bin/g++ GRAIN_PY_BUILD_DIR=$PWD/build/py-device CMAKE_ARGS="-DGRAIN_LAPACK_INCLUDE=$lap -DGRAIN_LAPACK=$lap/libopenblas.so.0 -DGRAIN_DLPACK_INCLUDE=$PWD/$C/dlpack" \
    "$py" -m pip install --no-build-isolation --no-deps ./python > "$out/r/python-install.log" 2>&1
  say "PYTHON pip install rc=$? in $(( $(date +%s) - t0 )) s"
  tail -n 5 "$out/r/python-install.log" >> "$log"
  (cd /tmp && "$py" -c "import grain; print('grain', grain.__version__, grain.info())") >> "$log" 2>&1
  "$py" -m pytest -q -p no:cacheprovider python/tests > "$out/r/python-tests.log" 2>&1
  say "PYTHON tests rc=$? $(tail -n 1 "$out/r/python-tests.log")"
  grep -E "^(FAILED|ERROR)" "$out/r/python-tests.log" | head -n 20 >> "$log"
  cmake --build build/py-device --target grain_python_overhead > "$out/r/python-overhead-build.log" 2>&1
  for w in host cuda; do
    build/py-device/python/grain_python_overhead $w >> "$log" 2>&1
    "$py" python/bench/overhead.py $w >> "$log" 2>&1
  done
  tns=$(mktemp -d)/genten3.tns
  "$G" generate --kind random-ktensor --dims 30000x40000x50000 --nnz 10000000 --output "$tns" > /dev/null 2>&1
  for R in 16 64; do
    "$py" python/bench/cp_als.py "$G" "$tns" $R 10 3 > "$out/r/python-cp-als-$R.txt" 2>&1
    say "PYTHON cp_als R=$R: $(tail -n 1 "$out/r/python-cp-als-$R.txt")"
  done
  "$py" python/bench/torch_cp_als.py "$tns" 16 5 > "$out/r/python-torch-cp-als.txt" 2>&1
  say "PYTHON torch: $(tail -n 1 "$out/r/python-torch-cp-als.txt")"
  # The CPU: the 1M-nonzero tensor of the CPU figures, 2 threads.
  "$G" generate --kind random-ktensor --dims 3000x4000x5000 --nnz 1000000 --output "$tns" > /dev/null 2>&1
  for R in 16 64; do
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true "$py" python/bench/cp_als.py "$G" "$tns" $R 10 5 cpu > "$out/r/python-cp-als-cpu-$R.txt" 2>&1
    say "PYTHON cp_als CPU 2 threads R=$R: $(tail -n 1 "$out/r/python-cp-als-cpu-$R.txt")"
  done
  rm -f "$tns"
fi

if has tests; then
  for t in "$C"/tests/grain_*_tests; do
    name=$(basename "$t")
    [ "$name" = grain_dist_tests ] && continue  # under mpirun: the dist part
    # As ctest runs it (tests/contract/CMakeLists.txt): the affinity tests need OMP_PROC_BIND at start.
    extra=""; [ "$name" = grain_bench_affinity_tests ] && extra="OMP_PROC_BIND=true"
    # grain_cli_tests runs the tool itself: the unpacked one here.
    env $extra GRAIN_CLI="$PWD/$G" "$t" --gtest_brief=1 > "$out/r/$name.log" 2>&1
    say "TEST $name rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/$name.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$out/r/$name.log" | head -20 | tee -a "$log"
  done
  # The example programs: each checks the portable kernel and the hand-written one on every back
  # end present (the GPU's part from its main_cuda.cu).
  for e in "$C"/examples/*; do
    [ -x "$e" ] || continue
    name=$(basename "$e")
    size=100000; [ "$name" = poisson ] && size=64  # poisson's argument: cells along each edge
    "$e" $size > "$out/r/example_$name.log" 2>&1
    say "EXAMPLE $name rc=$? $(grep -c ' ok' "$out/r/example_$name.log") ok lines, $(grep -c FAILED "$out/r/example_$name.log") FAILED"
  done
  # Sanitizers over the CUDA instantiations only (the CPU ones are covered by the ASan build), one
  # compute-sanitizer process per test, so a slow test is cut alone and the rest still report: a
  # whole suite under racecheck outlasts a device call. SANITIZE selects suites by an extended
  # regular expression on the name (default: all), SANITIZE_TOOLS the tools (default: memcheck
  # racecheck), SANITIZE_FILTER the tests (default: every CUDA test), SANITIZE_TIMEOUT bounds each
  # test's run (default 240 s).
  for t in "$C"/tests/grain_*_tests; do
    name=$(basename "$t")
    echo "$name" | grep -Eq "${SANITIZE:-.}" || continue
    tests=$("$t" --gtest_list_tests --gtest_filter="${SANITIZE_FILTER:-*cuda*:*Cuda*}" 2>/dev/null |
      awk '/^[^ ]/ && $1 ~ /\.$/ { s = $1 } /^  [^ ]/ { print s $1 }')
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
      runs=0 bad=0
      : > "$out/r/$name.$tool.log"
      for test in $tests; do
        runs=$((runs + 1))
        timeout "${SANITIZE_TIMEOUT:-240}" compute-sanitizer --tool $tool --error-exitcode 9 "$t" --gtest_brief=1 \
          --gtest_filter="$test" > "$out/r/one.log" 2>&1
        rc=$?
        summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/one.log" | tail -1)
        echo "== $test rc=$rc $summary" >> "$out/r/$name.$tool.log"
        cat "$out/r/one.log" >> "$out/r/$name.$tool.log"
        if [ $rc -ne 0 ]; then
          bad=$((bad + 1))
          say "SANITIZER $tool $name $test rc=$rc${summary:+ ($summary)}"
        fi
      done
      rm -f "$out/r/one.log"
      say "SANITIZER $tool $name: $runs CUDA tests, $bad failed or cut (rc != 0; 124: past SANITIZE_TIMEOUT)"
    done
  done
fi

if has ff; then
  for layout in ${LAYOUTS:-left right}; do
    "$G" bench contract --backend cuda --kernel all \
      --algorithm flat,tile,block,blas,mma,team-small-k,team-stride,cublas-strided-batched --layout $layout --json "$out/r/ff-$layout.json" > "$out/r/ff-$layout.txt" 2>&1
    say "bench contract layout $layout rc=$?"; tail -n 75 "$out/r/ff-$layout.txt" >> "$log"
  done
  # torch.einsum on row-major inputs and on the same LayoutLeft strides as grain's left suite.
  if [ "${TORCH:-1}" != 0 ]; then
    timeout 420 python3 bench/torch_einsum.py --layout both --json "$out/r/torch.json" > "$out/r/torch.txt" 2>&1
    say "torch einsum rc=$?"
  fi
  for layout in ${LAYOUTS:-left right}; do
    [ -f "$out/r/torch.json" ] || continue
    python3 scripts/contract-table.py "$out/r/ff-$layout.json" "$out/r/torch.json" --kernels FieldField > "$out/r/table-$layout.md" 2>&1
    cat "$out/r/table-$layout.md" >> "$log"
  done
fi

if has dist; then
  # CP-ALS across 2 ranks sharing the one GPU against one rank (the staging of device data through
  # the host), the dist suite under mpirun, and one GPU's iteration with and without the layer:
  # the previous build's binary, when staged as grain-before.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
  [ -x "$C/tests/grain_dist_tests" ] && { OMP_NUM_THREADS=1 mpirun -np 2 --oversubscribe "$C/tests/grain_dist_tests" \
    --gtest_brief=1 > "$out/r/grain_dist_tests.log" 2>&1; say "TEST grain_dist_tests (mpirun -np 2) rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/grain_dist_tests.log" | tr '\n' ' ')"; }
  gen="--generate random-ktensor --gen-dims 30000x40000x50000 --gen-nnz 10000000 --rank 16 --maxiters 10 --tol 0 --backend cuda"
  "$G" cp-als $gen --json "$out/r/dist-1.json" > "$out/r/dist-1.txt" 2>&1
  say "cp-als 1 rank rc=$? $(grep '^cp-als: ' "$out/r/dist-1.txt" | tail -1)"
  mpirun -np 2 --oversubscribe "$G" cp-als $gen --json "$out/r/dist-2.json" > "$out/r/dist-2.txt" 2>&1
  say "cp-als 2 ranks, one GPU rc=$? $(grep -E '^(cp-als: |across)' "$out/r/dist-2.txt" | tr '\n' ' ')"
  python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print('dist fits', a['fit'], b['fit'], 'max |diff|', max(abs(x['fit']-y['fit']) for x,y in zip(a['iterations'],b['iterations'])))" \
    "$out/r/dist-1.json" "$out/r/dist-2.json" >> "$log" 2>&1
  if [ -x "$C/grain-before" ]; then
    "$G" generate --kind random-ktensor --dims 30000x40000x50000 --nnz 10000000 --output /tmp/d3.gst > /dev/null 2>&1
    for rep in 1 2 3; do
      for b in grain-before grain; do
        for R in 16 64; do
          "$C/$b" cp-als /tmp/d3.gst --rank $R --maxiters 10 --tol 0 --backend cuda --json "$out/r/layer-$b-$R-$rep.json" > /dev/null 2>&1
          say "LAYER $b R=$R rep $rep: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['seconds_per_iteration'])" "$out/r/layer-$b-$R-$rep.json")"
        done
      done
    done
  fi
fi

if case "$what" in *" gpus "*) true ;; *) false ;; esac; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
  n=$(nvidia-smi -L | wc -l)
  if [ "${GPU_TESTS:-1}" != 0 ]; then
    timeout 300 bash tests/dist/gpus.sh "$G" mpirun > "$out/r/gpus-test.log" 2>&1
    say "TEST tests/dist/gpus.sh rc=$? $(tail -n 1 "$out/r/gpus-test.log")"
    timeout 300 mpirun -np "$n" "$C/tests/grain_dist_tests" --gpu --gtest_brief=1 > "$out/r/grain_dist_tests-gpu.log" 2>&1
    say "TEST grain_dist_tests --gpu (mpirun -np $n) rc=$? $(grep -aE 'PASSED|FAILED|^grain_dist_tests:' "$out/r/grain_dist_tests-gpu.log" | tr '\n' ' ')"
    timeout 300 mpirun -np "$n" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$C/tests/grain_dist_tests" --gpu \
      --gtest_brief=1 --gtest_filter='Comm.*:DistCpAls.ThreeWay*' > "$out/r/grain_dist_tests-memcheck.log" 2>&1
    say "SANITIZER memcheck grain_dist_tests --gpu rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/grain_dist_tests-memcheck.log" | tr '\n' ' ')"
  fi
  for t in ${SCALE-random-ktensor:100000x100000x100000 random-ktensor:20000x20000x20000x20000 skewed:1000000x500000x200000}; do
    kind=${t%%:*} dims=${t#*:}
    f=/tmp/scale.gst
    t0=$(date +%s)
    "$G" generate --kind "$kind" --dims "$dims" --nnz "${SCALE_NNZ:-500000000}" --output $f > "$out/r/scale-gen.txt" 2>&1
    say "SCALE generate $kind $dims rc=$? in $(( $(date +%s) - t0 )) s: $(head -c 300 "$out/r/scale-gen.txt")"
    for R in ${SCALE_RANKS:-16 64}; do
      for g in 1 "$n"; do
        name=scale-$kind-$(( $(echo "$dims" | tr -cd x | wc -c) + 1 ))way-R$R-g$g
        timeout 300 "$G" cp-als $f --rank "$R" --maxiters "${SCALE_ITERS:-10}" --tol 0 --backend cuda --gpus "$g" \
          --json "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
        say "SCALE $kind $dims R=$R gpus=$g rc=$? $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('s/iter %.4f comm/iter %.4f (%.0f%%) fit %.6f setup %.1f s' % (j['seconds_per_iteration'], j['comm_seconds_per_iteration'], 100*j['comm_seconds_per_iteration']/j['seconds_per_iteration'], j['fit'], j['setup_seconds']))" "$out/r/$name.json" 2>&1)"
      done
    done
    rm -f $f
  done
fi

if has cpu-ranks; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
  f=/tmp/cpu-ranks.gst
  "$G" generate --kind random-ktensor --dims 3000x4000x5000 --nnz 1000000 --output $f > /dev/null 2>&1
  # The whole run's seconds per iteration, and iterations 2-20 (steady), with their collectives.
  steady='import json,sys; j=json.load(open(sys.argv[1])); it=j["iterations"][1:]; m=lambda k: sum(i[k] for i in it)/len(it)
print("s/iter %.5f steady %.5f comm %.5f mttkrp %.5f setup %.3f fit %.12f" % (j["seconds_per_iteration"], m("seconds"), m("comm_seconds"), m("mttkrp_seconds"), j["setup_seconds"], j["fit"]))'
  for rep in $(seq "${CPU_REPS:-3}"); do
    for P in ${CPU_RANKS:-2 4}; do
      for R in 16 64; do
        a=(cp-als $f --rank "$R" --maxiters 20 --tol 0 --backend openmp)
        j=$out/r/cpu-threads-$P-R$R-$rep.json
        OMP_NUM_THREADS=$P OMP_PROC_BIND=close OMP_PLACES=cores "$G" "${a[@]}" --json "$j" > /dev/null 2>&1
        say "CPU 1 rank x $P threads R=$R rep $rep rc=$? $(python3 -c "$steady" "$j" 2>&1)"
        j=$out/r/cpu-ranks-$P-R$R-$rep.json
        OMP_NUM_THREADS=1 mpirun -np "$P" --map-by core --bind-to core "$G" "${a[@]}" --json "$j" > /dev/null 2>&1
        say "CPU $P ranks x 1 thread R=$R rep $rep rc=$? $(python3 -c "$steady" "$j" 2>&1)"
      done
    done
  done
  rm -f $f
fi

if case "$what" in *" auto-before "*) [ -x "$C/grain-before" ] ;; *) false ;; esac; then
  for rep in $(seq ${AUTO_REPS:-2}); do
    for b in grain-before grain; do
      for layout in left right; do
        "$C/$b" bench contract --backend cuda --algorithm auto --layout $layout --no-verify --quiet \
          --json "$out/r/auto-$b-$layout-$rep.json" > /dev/null 2>&1
        say "auto-before $b $layout rep $rep rc=$?"
      done
    done
  done
  python3 scripts/contract-compare.py "$out"/r/auto-grain-before-*-*.json -- "$out"/r/auto-grain-[lr]*-*.json >> "$log" 2>&1
fi

if has heldout; then
  for seed in ${SEEDS:-1 2}; do
    for layout in ${LAYOUTS:-left right}; do
      name=heldout-$layout-seed$seed
      "$G" bench contract --backend cuda --shapes random --count "${COUNT:-100}" --seed "$seed" \
        --budget-mib "${BUDGET:-128}" --reps 5 --layout $layout --json "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
      say "bench contract --shapes random seed $seed layout $layout rc=$?"
      sed -n '/^Auto \/ fastest/,$p' "$out/r/$name.txt" >> "$log"
    done
  done
fi

if has cpu-contract; then
  # The contraction suite on 2 CPU threads of this machine's host, x86-64-v3 build with OpenBLAS
  # linked statically (the per-cell GEMM peer and the CPU GEMM ceiling).
  if [ -x "$C/grain-cpu-v3" ]; then
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true "$C/grain-cpu-v3" bench contract --backend openmp \
      --algorithm flat,block,tile,slice,team-small-k,openblas-gemm --json "$out/r/contract-cpu2.json" > "$out/r/contract-cpu2.txt" 2>&1
    say "bench contract CPU 2 threads rc=$?"; tail -n 75 "$out/r/contract-cpu2.txt" >> "$log"
  fi
fi

if has cp; then
  M="$G bench mttkrp --kind random-ktensor --nnz 10000000 --backend cuda --cp-als-iters 10"
  $M --dims 30000x40000x50000 --rank 16,64,128 --json "$out/r/mttkrp-3way.json" > "$out/r/mttkrp-3way.txt" 2>&1
  say "bench mttkrp 3-way rc=$?"; grep -E "CP-ALS|perm|team|tiled" "$out/r/mttkrp-3way.txt" | tail -n 20 >> "$log"
  $M --dims 5000x250000x5000x100 --rank 16,64 --json "$out/r/mttkrp-4way.json" > "$out/r/mttkrp-4way.txt" 2>&1
  say "bench mttkrp 4-way rc=$?"; grep -E "CP-ALS|perm|team|tiled" "$out/r/mttkrp-4way.txt" | tail -n 20 >> "$log"
  # CPU, 2 threads: the portable build (SSE2) and, when staged, the x86-64-v3 build (AVX2 + FMA).
  for bin in "$G" "$C/grain-cpu-v3"; do
    [ -x "$bin" ] || continue
    tag=$(basename "$bin")
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true "$bin" bench mttkrp --kind random-ktensor --dims 3000x4000x5000 \
      --nnz 1000000 --rank 16,64 --backend openmp --cp-als-iters 10 --json "$out/r/mttkrp-cpu2-$tag.json" > "$out/r/mttkrp-cpu2-$tag.txt" 2>&1
    say "bench mttkrp CPU 2 threads ($tag) rc=$?"; grep -E "CP-ALS" "$out/r/mttkrp-cpu2-$tag.txt" >> "$log"
  done
  tns=$(mktemp -d)/genten3.tns
  "$G" generate --kind random-ktensor --dims 30000x40000x50000 --nnz 10000000 --output "$tns" >> "$log" 2>&1
  ls -l "$tns" >> "$log"
  for th in 16 2; do
    OMP_NUM_THREADS=$th "$G" cp-als "$tns" --rank 16 --maxiters 2 --backend cuda > "$out/r/tns-read-$th.txt" 2>&1
    say "tns read, $th threads: $(grep -m1 '^read' "$out/r/tns-read-$th.txt")"
  done
  rm -f "$tns"
fi

if has gcp; then
  d=$(mktemp -d)
  "$G" generate --kind random-ktensor --dims 30000x40000x50000 --nnz 10000000 --output "$d/counts.gst" > /dev/null 2>&1
  # The same run's MTTKRP and copy bandwidth: the ceiling a step's MTTKRPs over the samples meet.
  "$G" bench mttkrp "$d/counts.gst" --rank 16,64 --backend cuda --cp-als-iters 0 --json "$out/r/gcp-mttkrp.json" > "$out/r/gcp-mttkrp.txt" 2>&1
  say "gcp: bench mttkrp rc=$?"; grep -E "copy|atomic" "$out/r/gcp-mttkrp.txt" | head -n 12 >> "$log"
  for R in 16 64; do
    for loss in poisson gaussian; do
      "$G" gcp "$d/counts.gst" --rank $R --loss $loss --epochs 3 --backend cuda --json "$out/r/gcp-gpu-$loss-$R.json" > "$out/r/gcp-gpu-$loss-$R.txt" 2>&1
      say "gcp GPU R=$R $loss rc=$?: $(tail -n 1 "$out/r/gcp-gpu-$loss-$R.txt")"
    done
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true "$G" gcp "$d/counts.gst" --rank $R --loss poisson --epochs 1 --iters 200 \
      --backend openmp --json "$out/r/gcp-cpu2-poisson-$R.json" > "$out/r/gcp-cpu2-poisson-$R.txt" 2>&1
    say "gcp CPU 2 threads R=$R poisson (200 steps) rc=$?: $(tail -n 1 "$out/r/gcp-cpu2-poisson-$R.txt")"
  done
  "$G" generate --kind skewed --dims 30000x40000x50000 --nnz 10000000 --output "$d/skewed.gst" > /dev/null 2>&1
  for loss in poisson gaussian; do
    "$G" gcp "$d/skewed.gst" --rank 16 --loss $loss --epochs 20 --backend cuda --json "$out/r/gcp-skewed-$loss.json" > "$out/r/gcp-skewed-$loss.txt" 2>&1
    say "gcp skewed $loss rc=$?: $(tail -n 1 "$out/r/gcp-skewed-$loss.txt")"
  done
  # Best of 4 starts: one run sharing the read, the sort and the device memory, against four runs.
  t0=$(date +%s.%N)
  "$G" cp-als "$d/counts.gst" --rank 16 --maxiters 20 --tol 0 --starts 4 --backend cuda > "$out/r/starts-4.txt" 2>&1
  t1=$(date +%s.%N)
  for s in 1 2 3 4; do "$G" cp-als "$d/counts.gst" --rank 16 --maxiters 20 --tol 0 --seed $s --backend cuda > /dev/null 2>&1; done
  t2=$(date +%s.%N)
  say "cp-als --starts 4: $(awk "BEGIN { print $t1 - $t0 }") s; four runs: $(awk "BEGIN { print $t2 - $t1 }") s"
  rm -rf "$d"
fi

if has figures; then
  # The sweep behind the documentation's GPU heat map; scripts/docs-figures.sh draws it.
  "$G" bench contract --backend cuda --sweep --json "$out/r/sweep-gpu.json" > "$out/r/sweep-gpu.txt" 2>&1
  say "bench contract sweep (GPU) rc=$?"
fi

if has bench; then
  "$G" info > "$out/r/info.txt" 2>&1; cat "$out/r/info.txt" >> "$log"
  "$G" bench core --backend cuda --reps 30 --json "$out/r/core.json" >> "$log" 2>&1
  say "bench core rc=$?"
  "$G" bench paper --backend cuda --json "$out/r/paper.json" > "$out/r/paper.txt" 2>&1
  say "bench paper rc=$?"; tail -n 40 "$out/r/paper.txt" >> "$log"
fi
# A second run in the same call keeps the first one's results: results-2.tar.gz, and so on.
tarball=$out/results.tar.gz
n=1
while [ -e "$tarball" ]; do n=$((n + 1)); tarball=$out/results-$n.tar.gz; done
tar -czf "$tarball" -C "$out" r && rm -rf "$out/r"
