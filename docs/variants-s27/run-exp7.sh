#!/usr/bin/env bash
# Session 27, run 7: the cell tiles' pack loop unrolled by 2 (#pragma unroll 2 in tile()): the
# cell-tile tests with memcheck and racecheck, LayoutRight Q2 beside cuBLAS (twice), Nsight Compute
# with per-instruction counts (run-exp3.sh).
TAG=${TAG:-run7} exec bash "$(dirname "$0")/run-exp3.sh"
