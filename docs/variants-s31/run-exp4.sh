#!/usr/bin/env bash
# Session 31, run 4 (H100), the final code (the same kernels as run 2's): the suite in both layouts
# beside cuBLAS, torch.einsum in both layouts, and the FieldField tables (scripts/device-run.sh ff).
set -u
bash scripts/device-run.sh ff
