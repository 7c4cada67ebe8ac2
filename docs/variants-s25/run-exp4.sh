#!/usr/bin/env bash
# Session 25, runs 4, 5 and 9: run-exp1.sh again on later binaries (mma in LayoutRight from run 4
# on; the final code in run 9).
exec bash "$(dirname "$0")/run-exp1.sh"
