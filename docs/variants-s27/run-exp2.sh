#!/usr/bin/env bash
# Session 27, run 2: run 1's checks and shapes after the fix of the shared-memory hint's placement
# (run 1: nvcc compiled the one-unit-a-thread path into a fall-through; every check failed).
VARIANTS=${VARIANTS:-'- 0,0,0,114688 0,0,2,0 0,0,8,0 8,0,0,0 -'} TAG=${TAG:-run2} exec bash "$(dirname "$0")/run-exp1.sh"
