#!/usr/bin/env bash
# `mpirun -np 2 grain cp-als` against one process on the same tensor and seed: the same fits (to
# 1e-10) and the same model (factor match score 1); a malformed line in the second rank's part and
# an option that needs the whole tensor stop both ranks with one clear error.
#   usage: cli_ranks.sh GRAIN MPIEXEC
set -u
G=$1
MPI=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
two() { OMP_NUM_THREADS=1 "$MPI" -np 2 --oversubscribe "$G" "$@"; }
same_fit() {  # JSON A, JSON B: every iteration's fit within 1e-10, and as many iterations
  python3 - "$1" "$2" <<'PY' || fail "fits of $1 and $2 differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fa, fb = [i["fit"] for i in a["iterations"]], [i["fit"] for i in b["iterations"]]
assert len(fa) == len(fb) > 1 and a["fit"] > 0, (len(fa), len(fb))
assert all(abs(x - y) <= 1e-10 for x, y in zip(fa, fb)), (fa, fb)
assert b["ranks"] == 2 and a["ranks"] == 1 and b["comm_bytes_per_iteration"] > 0 and b["nnz"] == a["nnz"]
assert 0 < b["comm_seconds"] <= b["seconds"], (b["comm_seconds"], b["seconds"])
PY
}

"$G" generate --kind random-ktensor --dims 40x50x30 --nnz 20000 --output t.tns > /dev/null || fail "generate"
"$G" cp-als t.tns --rank 5 --maxiters 8 --tol 0 --json one.json --output one > /dev/null || fail "one process"
two cp-als t.tns --rank 5 --maxiters 8 --tol 0 --json two.json --output two > two.out 2>&1 || { cat two.out; fail "2 ranks"; }
same_fit one.json two.json
# What rank 0 sends an iteration, and no more (set-up's collectives are not the iterations'): per
# mode the whole MTTKRP into the reduce-scatter, its own rows (the first half, rounded up) into the
# all-gather, the R norms and the R x R Gram matrix; then the fit and the stop flag. 8 bytes each.
python3 -c "import json; b = json.load(open('two.json'))['comm_bytes_per_iteration']; \
  e = 8 * sum(i * 5 + (i + 1) // 2 * 5 + 5 + 25 for i in (40, 50, 30)) + 16; assert b == e, (b, e)" ||
  fail "comm_bytes_per_iteration is not what an iteration's collectives send"
grep -c "^cp-als: 8 iterations" two.out | grep -qx 1 || fail "the summary is not printed once (rank 0 only)"
"$G" score one two --json score.json > /dev/null || fail "score"
python3 -c "import json; s = json.load(open('score.json'))['score']; assert s > 1 - 1e-9, s" || fail "the models differ"

# Generated shares: each rank generates its own nonzeros of the same tensor.
gen=(--generate skewed --gen-dims 20x30x25x15 --gen-nnz 15000 --gen-seed 3 --rank 4 --maxiters 6 --tol 0)
"$G" cp-als "${gen[@]}" --json gone.json > /dev/null || fail "generated, one process"
two cp-als "${gen[@]}" --json gtwo.json > gtwo.out 2>&1 || { cat gtwo.out; fail "generated, 2 ranks"; }
same_fit gone.json gtwo.json

# A malformed line near the end: in rank 1's part; both ranks stop, the error is printed once.
n=$(wc -l < t.tns)
line=$((n - 9))
{ head -n $((line - 1)) t.tns; echo "3 4 x 1.0"; tail -n +$line t.tns; } > bad.tns
if two cp-als bad.tns --rank 5 > bad.out 2>&1; then fail "a malformed line did not fail"; fi
grep -q "rank 1 of 2: bad.tns:$line:5:" bad.out || { cat bad.out; fail "the error does not name rank 1 and bad.tns:$line:5"; }
[ "$(grep -c "bad.tns:$line" bad.out)" = 1 ] || { cat bad.out; fail "the error is not printed once"; }

if two cp-als t.tns --rank 5 --compact > compact.out 2>&1; then fail "--compact across ranks did not fail"; fi
grep -q "compact is not available across ranks" compact.out || { cat compact.out; fail "no clear --compact error"; }
echo "cli_ranks: passed"
