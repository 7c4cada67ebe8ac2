#!/usr/bin/env bash
# Run on the GPU machine first: unpacks the binaries scripts/device-stage.sh compressed into
# .device-carry/ (each NAME.xz to an executable NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
for f in $(find .device-carry -name '*.xz'); do
  xz -d -f "$f"
  chmod +x "${f%.xz}"
done
