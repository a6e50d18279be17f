#!/usr/bin/env bash
# Replays the archived whole-suite runs of the foreign H200s through the pool's nightly rule
# (`kernelgate history gate --reference gpu`), on the CPU: the runs scripts/class-factor.py uses
# (nominal, with a GPU UUID, baseline-identical modules) are imported into a fresh history, and each
# GPU's second and later runs are gated against that GPU's earlier runs, with spreads pooled from
# every run stored before it. Prints the outcomes and every line that is not `unchanged`.
#
#   bash baselines/nvidia-h200-sm90/benchmark/session28/pool-replay.sh    # from the repository root
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
kg=${KG:-target/release/kernelgate}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=baselines/nvidia-h200-sm90/benchmark
python3 scripts/class-factor.py baselines/nvidia-h200-sm90/runs/*.csv $bench/b*.t?z > "$tmp/cf.txt"
# "  GPU-x run k: RUN_ID commit C N trials ARCHIVE/PATH"
grep -E '^  GPU-[0-9a-f]+ run [0-9]+:' "$tmp/cf.txt" | awk '{print $1, $3, $4, $NF}' | sed 's/://' > "$tmp/runs.txt"
files=()
while read -r gpu n id path; do
    archive=${path%%/*}
    if [ ! -d "$tmp/x/$archive" ]; then
        mkdir -p "$tmp/x/$archive"
        tar xf "$bench/$archive" -C "$tmp/x/$archive"
    fi
    files+=("$tmp/x/$archive/${path#*/}")
done < "$tmp/runs.txt"
"$kg" history --dir "$tmp/h" import "${files[@]}" | tail -n 1
python3 - "$kg" "$tmp/h" "$tmp/runs.txt" <<'PY'
import collections, json, re, subprocess, sys
kg, store, listing = sys.argv[1:]
outcomes, lines, gated = collections.Counter(), [], 0
for gpu, n, run_id, _ in (l.split() for l in open(listing)):
    if n == "1":
        continue
    doc = json.loads(subprocess.run([kg, "history", "--dir", store, "gate", "--reference", "gpu", "--run", run_id,
                                     "--format", "json"], capture_output=True, text=True).stdout)
    for r in doc["runs"]:
        if r["run"]["gpu_uuid"].startswith(gpu):
            outcomes[r["outcome"]] += 1
            for reason in r["reasons"]:
                m = re.search(r"own history: (\d+) trials", reason["text"])
                gated += int(m.group(1)) if m else 0
                if reason["finding"] != "note" or reason["text"].startswith(("improved", "ambiguous")):
                    lines.append(f"{gpu} run {n} {run_id}: {reason['text'][:160]}")
print("runs:", dict(outcomes), "trial results gated:", gated)
print("\n".join(lines))
PY
