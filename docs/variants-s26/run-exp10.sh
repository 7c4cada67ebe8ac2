#!/usr/bin/env bash
# Session 26, run 10: run-exp5.sh over binaries whose cell tiles read scratch with shared-memory
# loads (GRAIN_ASSUME_TEAM_SCRATCH), the rule's own shape twice.
VARIANTS='- -' TAG=run10 exec bash "$(dirname "$0")/run-exp5.sh"
