#!/usr/bin/env bash
# Session 26, run 12: run-exp5.sh over the final code's binaries with other cell-tile shapes
# (GRAIN_CELL_TILES = cells,kc,groups,budget,slices), for the next session's choice of rule.
VARIANTS='- 0,0,0,49152 0,0,0,0,1 0,0,0,0,4 0,0,8,0 4,0,0,0 -' TAG=run12 exec bash "$(dirname "$0")/run-exp5.sh"
