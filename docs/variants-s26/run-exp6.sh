#!/usr/bin/env bash
# Session 26, run 6: run-exp5.sh over binaries in which each thread's unit and K slice were taken
# apart once per launch (reverted after this run), with these shapes.
VARIANTS='- 0,0,0,0,2 0,0,0,49152 3,0,0,0 0,0,0,0,1 -' TAG=run6 exec bash "$(dirname "$0")/run-exp5.sh"
