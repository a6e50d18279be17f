#!/usr/bin/env bash
# Replays every archived nominal whole-suite run of the H200s through the pool's nightly rule
# (`kernelgate history gate --reference gpu`), on the CPU. Unlike session28/pool-replay.sh, which
# takes only the runs of the committed baseline's modules on foreign GPUs (scripts/class-factor.py's
# selection), this takes every run with a GPU UUID, no A/B side (ab_revision empty), work scale 1
# and at least 60 timed trials, whatever its modules: a GPU's runs of another commit count, and the
# rule compares modules itself. Each run is gated against the runs imported before it (run id
# order); a GPU's first run is not gated. Prints the outcomes and every line that is not
# `unchanged`.
#
#   bash baselines/nvidia-h200-sm90/benchmark/session29/pool-replay.sh    # from the repository root
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
kg=${KG:-target/release/kernelgate}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=baselines/nvidia-h200-sm90/benchmark
python3 - "$tmp" baselines/nvidia-h200-sm90/runs/*.csv $bench/b*.t?z > "$tmp/runs.txt" <<'PY'
import importlib.util, pathlib, sys
spec = importlib.util.spec_from_file_location("cf", "scripts/class-factor.py")
cf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cf)
tmp = pathlib.Path(sys.argv[1]) / "x"
files = cf.input_files(sys.argv[2:], tmp)
runs = cf.read_runs(files, {f: str(f) for f in files})
for (uuid, run_id), run in sorted(runs.items(), key=lambda kv: kv[0][1]):
    timed = sum(1 for t in run["trials"].values() if cf.as_float(t.get("median")))
    if uuid and run["ab"] == {""} and all(cf.as_float(s) == 1.0 for s in run["scale"]) and timed >= 60:
        print(uuid, run_id, run["source"])
PY
cut -d' ' -f3 "$tmp/runs.txt" | sort -u | xargs "$kg" history --dir "$tmp/h" import | tail -n 1
python3 - "$kg" "$tmp/h" "$tmp/runs.txt" <<'PY'
import collections, json, re, subprocess, sys
kg, store, listing = sys.argv[1:]
outcomes, lines, gated, seen = collections.Counter(), [], 0, collections.Counter()
for uuid, run_id, _ in (l.split() for l in open(listing)):
    seen[uuid] += 1
    if seen[uuid] == 1:
        continue
    doc = json.loads(subprocess.run([kg, "history", "--dir", store, "gate", "--reference", "gpu", "--run", run_id,
                                     "--format", "json"], capture_output=True, text=True).stdout)
    for r in doc["runs"]:
        if r["run"]["gpu_uuid"] != uuid:
            continue
        outcomes[r["outcome"]] += 1
        for reason in r["reasons"]:
            m = re.search(r"own history: (\d+) trials", reason["text"])
            gated += int(m.group(1)) if m else 0
            if reason["finding"] != "note" or reason["text"].startswith(("improved", "ambiguous")):
                lines.append(f"{uuid[:12]} run {seen[uuid]} {run_id}: {reason['text'][:160]}")
print("runs:", dict(outcomes), "trial results gated:", gated)
print("\n".join(lines))
PY
