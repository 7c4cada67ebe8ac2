#!/usr/bin/env bash
# The second call of a final GPU run (see run-final-checks.sh): both suites beside cuBLAS and
# torch.einsum in both layouts, with the FieldField tables (scripts/device-run.sh's ff mode, which
# unpacks the binaries itself).
exec bash scripts/device-run.sh ff
