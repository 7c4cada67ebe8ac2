"""grain.cp_als's time per iteration beside `grain cp-als` on the same file, runs alternating.

    PYTHONPATH=build/host/python python3 python/bench/cp_als.py GRAIN_BINARY FILE [RANK [ITERS [REPEATS [DEVICE]]]]

DEVICE: auto (default: the GPU when there is one, as both sides choose by default) or cpu (the
tool's --backend openmp, grain.cp_als's device="cpu"). Both start from the same seed with tol 0,
so they do the same iterations; each prints the median over iterations of the seconds an
iteration and of its MTTKRP seconds, and the last line the medians over the repeats.
"""
import json
import statistics
import subprocess
import sys

import grain

binary, path = sys.argv[1], sys.argv[2]
rank, iters, repeats = (int(x) for x in (sys.argv[3:6] + ["16", "10", "5"][len(sys.argv[3:6]):])[:3])
device = sys.argv[6] if len(sys.argv) > 6 else "auto"
backend = ["--backend", "openmp"] if device == "cpu" else []
X = grain.SparseTensor.read(path)
rows = {"cli": [], "python": []}
for r in range(repeats):
    out = subprocess.run([binary, "cp-als", path, "--rank", str(rank), "--maxiters", str(iters), "--tol", "0",
                          "--seed", "1", "--json", "-"] + backend, check=True, capture_output=True, text=True).stdout
    its = json.loads(out)["iterations"]
    cli = (statistics.median(i["seconds"] for i in its), statistics.median(i["mttkrp_seconds"] for i in its),
           its[-1]["fit"])
    M = grain.cp_als(X, rank, maxiters=iters, tol=0, seed=1, device=device)
    py = (statistics.median(M.seconds), statistics.median(M.mttkrp_seconds), M.fit)
    for name, v in (("cli", cli), ("python", py)):
        rows[name].append(v)
        print(f"{name:6s} repeat {r}: {v[0] * 1e3:7.1f} ms an iteration, MTTKRP {v[1] * 1e3:7.1f} ms, fit {v[2]:.9f}")
med = {k: [statistics.median(x[i] for x in v) for i in range(2)] for k, v in rows.items()}
print(f"median of {repeats}: cli {med['cli'][0] * 1e3:.1f} ms ({med['cli'][1] * 1e3:.1f} MTTKRP), python "
      f"{med['python'][0] * 1e3:.1f} ms ({med['python'][1] * 1e3:.1f} MTTKRP): python/cli "
      f"{med['python'][0] / med['cli'][0]:.3f}")
