#!/usr/bin/env bash
# Session 19, run 7: the final binaries: the contraction suite in both layouts beside cuBLAS, and
# torch.einsum (docs/bench-contract-h100-s19-left.json, -right.json, docs/bench-torch-einsum-h100-s19.json).
set -u
OUT=${OUT:-exp7} bash scripts/device-run.sh ff
