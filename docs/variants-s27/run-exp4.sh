#!/usr/bin/env bash
# Session 27, run 4: the cell tiles' staging four rows a loop step with 32-bit offsets, its
# geometry computed once: run-exp3.sh's checks, LayoutRight Q2 beside cuBLAS twice, Nsight Compute
# with per-instruction counts.
TAG=${TAG:-run4} exec bash "$(dirname "$0")/run-exp3.sh"
