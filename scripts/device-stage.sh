#!/usr/bin/env bash
# Collects the GPU machine's payload from a `device`-preset build into .device-carry/ (ignored by
# git): the grain tool, every test binary and the example programs. Those binaries link libstdc++,
# libgomp, zlib, cudart and OpenBLAS's LAPACK statically, cuBLAS and cuSOLVER dynamically (the GPU
# machine has the CUDA toolkit's libraries).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/device}
# Refuse binaries older than the sources they are built from: a build killed mid-compile can leave
# ninja without the header dependencies of an object, so a later header-only change builds nothing
# (`ninja -C build/device -t clean` and a rebuild restore them). Sources are checked against the
# newest binary, since a change to one test's source relinks that test alone.
newest=$(ls -t "$build/apps/grain/grain" "$build"/tests/*/grain_*_tests "$build"/examples/hex_gradient \
  "$build"/examples/gram_schmidt "$build"/examples/poisson 2>/dev/null | head -1)
newer=$(find include src apps bench tests examples -type f -newer "$newest" | head -5)
if [ -n "$newer" ] || ! ninja -C "$build" -n 2>/dev/null | grep -q "no work to do"; then
  echo "device-stage: the build is not up to date, or sources are newer than $newest (rebuild first; if ninja has no work, ninja -C $build -t clean):" >&2
  echo "$newer" >&2
  exit 1
fi
rm -rf .device-carry && mkdir -p .device-carry/tests
cp "$build/apps/grain/grain" .device-carry/
for t in "$build"/tests/*/grain_*_tests; do cp "$t" .device-carry/tests/; done
# The example programs (scripts/device-run.sh tests runs them on every back end there).
mkdir -p .device-carry/examples
for e in hex_gradient gram_schmidt poisson; do
  [ -x "$build/examples/$e" ] || { echo "device-stage: $build/examples/$e is missing (build it first)" >&2; exit 1; }
  cp "$build/examples/$e" .device-carry/examples/
done
# Optional: a CPU-only grain built for x86-64-v3 (AVX2 + FMA), for the CPU comparisons there:
#   cmake -S . -B build/cpu-v3 -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRAIN_ENABLE_CUDA=OFF \
#     -DGRAIN_ENABLE_OPENBLAS=ON -DGRAIN_OPENBLAS_LIB="/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.a;/usr/lib/gcc/x86_64-linux-gnu/12/libgfortran.a;/usr/lib/gcc/x86_64-linux-gnu/12/libquadmath.a;-lpthread" \
#     -DGRAIN_STATIC_RUNTIME=ON -DGRAIN_NATIVE_ARCH=OFF \
#     -DGRAIN_ENABLE_TESTS=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3 && ninja -C build/cpu-v3 grain_cli
# (OpenBLAS linked statically: the GPU machine has no Debian packages.)
if [ -x build/cpu-v3/apps/grain/grain ]; then cp build/cpu-v3/apps/grain/grain .device-carry/grain-cpu-v3; fi
# LAPACK for the Python package built there (scripts/device-run.sh python): the GPU machine has
# none, so OpenBLAS's shared library, its Fortran runtime and the header travel from here.
mkdir -p .device-carry/lapack
cp /usr/include/lapack.h /usr/include/lapacke_config.h /usr/include/lapacke_mangling.h .device-carry/lapack/
for l in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0; do cp -L "/usr/lib/x86_64-linux-gnu/$l" .device-carry/lapack/; done
xz -T2 -6 -f .device-carry/lapack/*.so.*
# DLPack's header (Debian libdlpack-dev), for the Python package's PyTorch and CuPy arrays.
mkdir -p .device-carry/dlpack/dlpack && cp /usr/include/dlpack/dlpack.h .device-carry/dlpack/dlpack/
strip .device-carry/grain* .device-carry/tests/* .device-carry/examples/* 2>/dev/null || true
# Every binary compressed (xz shrinks them about 4x), so that they and the tree stay under the
# device tool's 64 MiB; scripts/device-unpack.sh (which scripts/device-run.sh calls) unpacks them
# there. Commands of one's own start with
# `bash scripts/device-unpack.sh;`.
xz -T2 -6 -f .device-carry/grain* .device-carry/tests/* .device-carry/examples/*
du -sh .device-carry
