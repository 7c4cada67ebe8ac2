#!/usr/bin/env bash
# Session 25, runs 7 and 8: run-exp6.sh without the mutant, after each change of the result stores
# (16-byte packs of fields from any alignment: 24 slots a row in run 7, 16 threads a row in run 8).
exec bash "$(dirname "$0")/run-exp6.sh"
