#!/usr/bin/env bash
# Checks that the tree holds the present, not its history (run by scripts/test.sh, hence by CI):
#   - no tracked file under the source and documentation folders says "session N" or "run N"
#     (history belongs in git; measured figures in docs/performance.md);
#   - README.md stays at most 250 lines and docs/performance.md at most 400;
#   - at most 400 tracked files, and at most 5 MB of tracked content;
#   - the layers (docs/architecture.md): the library (include/, src/) includes neither the
#     benchmarks nor the tool, and the benchmarks (bench/) never include the tool (apps/).
# Exits 1 and names each offending line or limit.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
fail() { echo "check-tree: $*" >&2; status=1; }

paths=(include src apps bench tests examples scripts docs python README.md CHANGELOG.md CMakeLists.txt cmake)
existing=()
for p in "${paths[@]}"; do [ -e "$p" ] && existing+=("$p"); done
# bench/results/ holds measured data as the benchmarks wrote it; its contents are not prose.
# This script names the pattern it looks for, so it is exempt from it.
if hits=$(git grep -nIiE '\b(sessions?|runs?)[ -]#?[0-9]' -- "${existing[@]}" \
            ':!bench/results/' ':!scripts/check-tree.sh'); then
  fail "history in the tree (\"session N\" / \"run N\"): say the rule and its reason instead"
  echo "$hits" >&2
fi

# Include paths are relative to include/ and bench/; a layer crossing names the other folder.
if hits=$(git grep -nE '#include +"(\.\./)*(apps|bench)/|#include +"(common|contract_bench|core_bench|paper_bench|mttkrp_bench)[./]' -- include src); then
  fail "the library includes the benchmarks or the tool"
  echo "$hits" >&2
fi
if hits=$(git grep -nE '#include +"(\.\./)*apps/|#include +"(cli|commands)\.hpp"' -- bench); then
  fail "bench/ includes the tool (apps/)"
  echo "$hits" >&2
fi

lines() { wc -l < "$1"; }
[ "$(lines README.md)" -le 250 ] || fail "README.md has $(lines README.md) lines (at most 250)"
[ "$(lines docs/performance.md)" -le 400 ] || fail "docs/performance.md has $(lines docs/performance.md) lines (at most 400)"

files=$(git ls-files | wc -l)
[ "$files" -le 400 ] || fail "$files tracked files (at most 400)"
bytes=$( (git ls-files -z | xargs -0 cat 2>/dev/null || true) | wc -c)  # a file deleted but not yet unstaged counts 0
[ "$bytes" -le 5000000 ] || fail "$bytes bytes of tracked files (at most 5 MB)"

[ $status -eq 0 ] && echo "check-tree: ok ($files tracked files, $bytes bytes)"
exit $status
