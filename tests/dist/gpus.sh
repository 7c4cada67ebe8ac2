#!/usr/bin/env bash
# CP-ALS across GPUs against one GPU on the same tensor and seed: `grain cp-als --gpus N` (one
# process, a thread per GPU, NCCL) and, given MPIEXEC, `mpirun -np N grain cp-als --backend cuda`
# (a rank per GPU, NCCL): the same fits (to 1e-10) and the same model (factor match score 1) on a
# 3-way tensor read from a file and a generated skewed 4-way one; a malformed line in one GPU's
# part; and the errors of a bad --gpus.
# Exits 77 (skipped) with fewer than 2 GPUs or without NCCL.
#   usage: gpus.sh GRAIN [MPIEXEC [N]]
set -u
G=$(realpath "$1")
MPI=${2:-}
info=$("$G" info --no-bandwidth 2>&1)
visible=$(sed -n 's/^gpu: .*(\([0-9]*\) visible)$/\1/p' <<< "$info")
N=${3:-${visible:-0}}
if [ "${visible:-0}" -lt 2 ] || ! grep -q "nccl yes" <<< "$info"; then
  echo "gpus: needs 2 GPUs and NCCL ($(grep -E '^(gpu|across)' <<< "$info" | tr '\n' ' ')); skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
same() {  # JSON of one GPU, JSON of N, their factor prefixes: fits within 1e-10, score 1
  python3 - "$1" "$2" "$N" <<'PY' || fail "fits of $1 and $2 differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fa, fb = [i["fit"] for i in a["iterations"]], [i["fit"] for i in b["iterations"]]
assert len(fa) == len(fb) > 1 and a["fit"] > 0, (len(fa), len(fb))
assert all(abs(x - y) <= 1e-10 for x, y in zip(fa, fb)), (fa, fb)
assert b["ranks"] == int(sys.argv[3]) and b["comm_engine"] == "nccl" and b["comm_bytes_per_iteration"] > 0, b["comm_engine"]
assert a["ranks"] == 1 and b["nnz"] == a["nnz"]
PY
  "$G" score "$3" "$4" --json score.json > /dev/null || fail "score $3 $4"
  python3 -c "import json; s = json.load(open('score.json'))['score']; assert s > 1 - 1e-9, s" || fail "the models $3 and $4 differ"
}
run() { "$G" cp-als --backend cuda "$@"; }

"$G" generate --kind random-ktensor --dims 300x200x250 --nnz 200000 --output t.tns > /dev/null || fail "generate"
file=(t.tns --rank 8 --maxiters 8 --tol 0)
run "${file[@]}" --json one.json --output one > one.out 2>&1 || { cat one.out; fail "one GPU"; }
run "${file[@]}" --gpus "$N" --json many.json --output many > many.out 2>&1 || { cat many.out; fail "--gpus $N"; }
same one.json many.json one many
grep -c "^cp-als: 8 iterations" many.out | grep -qx 1 || { cat many.out; fail "--gpus: the summary is not printed once"; }

gen=(--generate skewed --gen-dims 60x90x40x70 --gen-nnz 300000 --gen-seed 5 --rank 6 --maxiters 6 --tol 0 --dtype double)
run "${gen[@]}" --json gone.json --output gone > gone.out 2>&1 || { cat gone.out; fail "generated, one GPU"; }
run "${gen[@]}" --gpus "$N" --json gmany.json --output gmany > gmany.out 2>&1 || { cat gmany.out; fail "generated, --gpus $N"; }
same gone.json gmany.json gone gmany

if [ -n "$MPI" ]; then
  "$MPI" -np "$N" "$G" cp-als --backend cuda "${file[@]}" --json mpi.json --output mpi > mpi.out 2>&1 ||
    { cat mpi.out; fail "mpirun -np $N"; }
  same one.json mpi.json one mpi
fi

# A malformed line near the end of the file: in the last GPU's part; every rank stops, the error is
# printed once and names that rank and the line.
n=$(wc -l < t.tns)
line=$((n - 9))
{ head -n $((line - 1)) t.tns; echo "3 4 x 1.0"; tail -n +$line t.tns; } > bad.tns
if run bad.tns --rank 5 --gpus "$N" > bad.out 2>&1; then fail "a malformed line did not fail under --gpus"; fi
grep -q "rank $((N - 1)) of $N: bad.tns:$line:5:" bad.out || { cat bad.out; fail "the error does not name rank $((N - 1)) and bad.tns:$line:5"; }
[ "$(grep -c "bad.tns:$line" bad.out)" = 1 ] || { cat bad.out; fail "the error is not printed once"; }

# A bad --gpus is a clear error.
if run "${file[@]}" --gpus $((visible + 1)) > big.out 2>&1; then fail "--gpus beyond the GPUs did not fail"; fi
grep -q -- "--gpus $((visible + 1)): $visible GPUs are visible" big.out || { cat big.out; fail "no clear error for too many GPUs"; }
if "$G" cp-als "${file[@]}" --backend serial --gpus 2 > cpu.out 2>&1; then fail "--gpus on the CPU did not fail"; fi
grep -q -- "--gpus 2 needs --backend cuda" cpu.out || { cat cpu.out; fail "no clear error for --gpus on the CPU"; }
echo "gpus: passed on $N GPUs"
