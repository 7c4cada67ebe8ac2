#!/usr/bin/env bash
# Builds .exp/NAME/grain from build/device with src/contract/mma_cuda.cu compiled under extra
# flags (temporary experiments of session 8): build-exp.sh NAME -DFLAG...
set -eu
cd "$(dirname "$0")/../.."
name=$1; shift
d=/tmp/exp-$name; mkdir -p $d .exp/$name
/usr/local/cuda/bin/nvcc -ccbin=/usr/bin/c++ -DGRAIN_ENABLE_CUDA -DGRAIN_ENABLE_OPENMP -Iinclude -O3 -DNDEBUG \
  --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-fopenmp --extended-lambda \
  --expt-relaxed-constexpr -std=c++17 "$@" -c src/contract/mma_cuda.cu -o $d/mma_cuda.cu.o
cp build/device/libgrain.a $d/libgrain.a
(cd $d && ar r libgrain.a mma_cuda.cu.o)
b=build/device
/usr/bin/c++ -O3 -DNDEBUG -static-libstdc++ -static-libgcc $b/apps/grain/CMakeFiles/grain_cli.dir/main.cpp.o \
  $b/apps/grain/CMakeFiles/grain_cli.dir/info.cpp.o $b/apps/grain/CMakeFiles/grain_cli.dir/cp_commands.cpp.o \
  -o .exp/$name/grain -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,-rpath,/usr/local/cuda/lib: $d/libgrain.a \
  $b/bench/libgrain_bench_core.a $b/bench/libgrain_bench_paper.a $b/bench/libgrain_bench_contract.a \
  $b/examples/libgrain_examples.a $b/bench/libgrain_bench_common.a $d/libgrain.a \
  $(ninja -C $b -t commands apps/grain/grain | tail -1 | sed 's/.*bench\/libgrain_bench_common.a  libgrain.a  //; s/&& :$//')
strip .exp/$name/grain; ls -la .exp/$name/grain
