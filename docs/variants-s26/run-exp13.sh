#!/usr/bin/env bash
# Session 26, run 13: the final code after run 12's fix (one buffer with several groups a team
# staged only its first group): run-exp11.sh's checks, LayoutRight Q2 once.
VARIANTS='-' TAG=run13 exec bash "$(dirname "$0")/run-exp11.sh"
