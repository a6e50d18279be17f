#!/usr/bin/env python3
"""Can one correction factor per machine (or per machine and bound class) replace a baseline per GPU?

On an H200 other than the one that blessed the committed baseline ("foreign" GPU), every trial's
median sits a few percent off the baseline's (the machine offset of BENCHMARK.md). This script
measures, from archived whole-suite run CSVs, how much of that offset a correction removes:

  1. offset of each trial, run median / baseline median - 1, and how well two runs of the same
     GPU agree on it (median and 90th percentile of |offset_run_k - offset_run_1|);
  2. the residual after dividing by one factor per GPU and run (1 + the median offset of the run's
     gated trials): trials with |residual| > the gate (1 %), and the largest |residual|;
  3. the same with one factor per GPU, run and bound class (the class's median offset), and the
     spread of the offsets within each class (min..max);
  4. the residual when the GPU is judged against its own first run (run_k median / run_1 median - 1),
     i.e. a reference per physical GPU.
  5. the residual against a reference of the same machine type: GPUs are grouped by how close
     their first runs' offsets are (single linkage: median over the gated trials of
     |offset_A - offset_B| at most --type-distance, 0.4 %; the committed baseline is a member
     with offset 0); each GPU is judged against the baseline when it is of the blessing GPU's
     type, else against the first run of the earliest other GPU of its type.
Items 2 and 3 are printed twice: with the factors fitted on the run itself (in sample: the best a
factor can do) and with the factors fitted on the GPU's first run and applied to its later runs
(out of sample, as a stored per-machine factor would be used; comparable with item 4).

Usage (from the repository root; archives are extracted to a temporary folder, never in place):

    python3 scripts/class-factor.py [--baseline baselines/nvidia-h200-sm90/baseline.csv]
        [--gate 0.01] [--min-trials 60] [--trials N] [--type-distance 0.004]
        baselines/nvidia-h200-sm90/runs/*.csv baselines/nvidia-h200-sm90/benchmark/b*.t?z

Arguments are run CSVs, folders (searched for *.csv) or tar archives (.tgz, .txz, .tar.*). A file
is a run CSV when its header has run_id, trial, statistic and value; `-metrics.csv` files are
skipped. Runs are told apart by (gpu_uuid, run_id); a run found in several inputs counts once.

Which runs and trials count:
- nominal runs only: every trial's ab_revision empty (no A/B or paired A/A run) and work_scale 1
  (no power run); runs without a gpu_uuid (schema 3 and older) are skipped;
- a trial counts only where the run's module_sha256 equals the baseline's for that trial (the same
  kernel code: planted and edited kernels drop out) and the run's GPU is not the GPU that blessed
  that trial (the baseline records the blessing GPU per trial);
- a run counts when at least --min-trials trials count (whole-suite runs, not shards or families);
  a GPU counts when it has at least two such runs. Runs are ordered by run_id (UTC start).

Bound class of a trial (rule, in this order):
- host:    transfers/* (PCIe copies, pageable and pinned, and the copy pipelines); reported apart,
           not in the counts of items 2-5;
- launch:  launch/* (a few microseconds of work per launch);
- from the baseline's ncu counters: DRAM utilisation = (dram__bytes_read.sum +
  dram__bytes_write.sum) / baseline median / copy bandwidth (median copy_bandwidth_gbps of the
  runs read); at >= 50 %:
    dram_copy when dram__bytes_write.sum / dram__bytes_read.sum >= 0.25, else dram_read;
- below 50 %: compute when the runs report a `flops` statistic for the trial (matmul, occupancy,
  divergence, the shared-memory reductions), else onchip (uncoalesced / latency / shared-memory /
  atomic bound: naive and shared transposes, column traversal, the large smem tiles, global
  histogram).
A trial without counters in the baseline falls back to the runs' pct_of_copy_bandwidth.

Standard library only.
"""

import argparse
import collections
import csv
import math
import os
import pathlib
import statistics
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = ROOT / "baselines" / "nvidia-h200-sm90" / "baseline.csv"
CLASSES = ("dram_copy", "dram_read", "compute", "onchip", "launch")
HOST = "host"

csv.field_size_limit(1 << 30)


# ----------------------------------------------------------------------------------------------
# Inputs


def extract_csvs(archive, into):
    """Extracts the .csv members of a tar archive (except samples and metrics) under `into`."""
    dest = into / pathlib.Path(archive).name
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.isfile()
            and m.name.endswith(".csv")
            and not m.name.endswith(("samples.csv", "-metrics.csv"))
        ]
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, members=members, filter="data")
        else:
            for m in members:
                if m.name.startswith("/") or ".." in pathlib.PurePosixPath(m.name).parts:
                    continue
                tar.extract(m, dest)
    return sorted(p for p in dest.rglob("*.csv"))


def input_files(args, tmp):
    files = []
    for a in args:
        p = pathlib.Path(a)
        if p.is_dir():
            files += sorted(p.rglob("*.csv"))
        elif p.suffix in (".tgz", ".txz", ".tar") or ".tar." in p.name:
            files += extract_csvs(p, tmp)
        elif p.suffix == ".csv":
            files.append(p)
        else:
            sys.exit(f"class-factor: {a}: not a CSV, folder or tar archive")
    return [f for f in files if not f.name.endswith("-metrics.csv")]


def read_runs(files, labels):
    """Returns {(gpu_uuid, run_id): run} for every run CSV among `files`."""
    runs = {}
    for f in files:
        with open(f, newline="") as fh:
            reader = csv.DictReader(fh)
            cols = set(reader.fieldnames or ())
            if not {"run_id", "trial", "statistic", "value"} <= cols:
                continue
            found = {}
            for r in reader:
                key = (r.get("gpu_uuid", ""), r["run_id"])
                run = found.get(key)
                if run is None:
                    run = found[key] = {
                        "uuid": key[0],
                        "run_id": key[1],
                        "commit": r.get("commit", ""),
                        "source": labels.get(f, str(f)),
                        "trials": collections.defaultdict(dict),
                        "ab": set(),
                        "scale": set(),
                        "copy_bw": r.get("copy_bandwidth_gbps", ""),
                    }
                t = run["trials"][r["trial"]]
                t[r["statistic"]] = r["value"]
                t["module"] = r.get("module_sha256", "")
                if r["statistic"] == "median":
                    run["ab"].add(r.get("ab_revision", ""))
                    run["scale"].add(r.get("work_scale", "1"))
            for key, run in found.items():
                runs.setdefault(key, run)
    return runs


def read_baseline(path):
    """Returns {trial: {metric: median}} and {trial: (module, blessing gpu)}."""
    metrics = collections.defaultdict(dict)
    ident = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            try:
                metrics[r["trial"]][r["metric"]] = float(r["median"])
            except ValueError:
                continue
            if r["metric"] == "time":
                ident[r["trial"]] = (r["module_sha256"], r["gpu_uuid"])
    return metrics, ident


def as_float(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


# ----------------------------------------------------------------------------------------------
# Classes


def classify(trial, base, has_flops, pct_copy, copy_bw):
    if trial.startswith("transfers/"):
        return HOST
    if trial.startswith("launch/"):
        return "launch"
    m = base.get(trial, {})
    rd, wr, t = m.get("dram__bytes_read.sum"), m.get("dram__bytes_write.sum"), m.get("time")
    if rd is not None and wr is not None and t:
        util = (rd + wr) / t / (copy_bw * 1e9)
        ratio = wr / rd if rd > 0 else 0.0
    else:
        util = (pct_copy or 0.0) / 100.0
        ratio = 1.0
    if util >= 0.5:
        return "dram_copy" if ratio >= 0.25 else "dram_read"
    return "compute" if has_flops else "onchip"


# ----------------------------------------------------------------------------------------------
# Statistics


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def corrected(off, factor):
    """Residual of an offset after dividing the run's time by (1 + factor)."""
    return (1.0 + off) / (1.0 + factor) - 1.0


class Tally:
    """Count of |residual| > gate and the largest |residual| over (run, trial) pairs."""

    def __init__(self, gate):
        self.gate, self.n, self.over, self.worst = gate, 0, 0, 0.0

    def add(self, res):
        self.n += 1
        self.over += abs(res) > self.gate
        self.worst = max(self.worst, abs(res))

    def merge(self, other):
        self.n += other.n
        self.over += other.over
        self.worst = max(self.worst, other.worst)

    def cell(self):
        if not self.n:
            return "-"
        return f"{self.over}/{self.n} {pct(self.worst, sign=False)}"


def pct(x, sign=True):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x * 100:+.2f}%" if sign else f"{x * 100:.2f}%"


def class_factors(offsets, cls):
    by = collections.defaultdict(list)
    for t, o in offsets.items():
        by[cls[t]].append(o)
    return {c: statistics.median(v) for c, v in by.items()}


def profile_distance(a, b):
    """Median |offset difference| over the gated trials two offset profiles share."""
    common = set(a) & set(b)
    return statistics.median(abs(a[t] - b[t]) for t in common) if common else float("inf")


def machine_types(per_gpu, cls, gate, limit):
    """Item 5: groups GPUs by their first runs' offset profiles; judges each against its type."""
    BASE = "baseline"
    order = sorted(per_gpu, key=lambda g: per_gpu[g][0]["run_id"])
    prof = {BASE: {}}
    for g in order:
        prof[g] = {t: o for t, o in per_gpu[g][0]["off"].items() if cls[t] != HOST}
    prof[BASE] = {t: 0.0 for g in order for t in prof[g]}
    members = [BASE] + order
    group = {m: i for i, m in enumerate(members)}
    for i, x in enumerate(members):  # single linkage
        for y in members[i + 1:]:
            if group[x] != group[y] and profile_distance(prof[x], prof[y]) <= limit:
                old, new = group[y], group[x]
                for m in members:
                    if group[m] == old:
                        group[m] = new
    types = collections.defaultdict(list)
    for m in members:
        types[group[m]].append(m)
    names = {}
    for n, (_, ms) in enumerate(sorted(types.items(), key=lambda kv: (BASE not in kv[1], kv[0]))):
        for m in ms:
            names[m] = chr(ord("A") + n)
    print(f"Machine types (single linkage, median |offset_A - offset_B| of the first runs <= "
          f"{limit * 100:g} %; type A holds the committed baseline):")
    for n in sorted(set(names.values())):
        ms = [m for m in members if names[m] == n]
        inner = [profile_distance(prof[x], prof[y]) for i, x in enumerate(ms) for y in ms[i + 1:]
                 if x != BASE and y != BASE]
        outer = [profile_distance(prof[x], prof[y]) for x in ms for y in members
                 if names[y] != n and x != BASE and y != BASE]
        print(f"  type {n}: {len(ms)} ({', '.join(m[:12] for m in ms)}); median distance within "
              f"{pct(statistics.median(inner), False) if inner else '-'}, to other types "
              f"{pct(statistics.median(outer), False) if outer else '-'}")
    print()
    print("Item 5, each GPU against a reference of its type (all its runs; pairs over the gate / "
          "pairs, largest |residual|):")
    total = Tally(gate)
    for g in order:
        mates = [m for m in members if names[m] == names[g] and m != g]
        ref = BASE if BASE in mates else (mates[0] if mates else None)
        t = Tally(gate)
        if ref is not None:
            rprof = prof[BASE] if ref == BASE else prof[ref]
            for r in per_gpu[g]:
                for trial, o in r["off"].items():
                    if cls[trial] != HOST and trial in rprof:
                        t.add(corrected(o, rprof[trial]))
        total.merge(t)
        print(f"  {g[:12]} type {names[g]}  against {ref[:12] if ref else '-':12s} {t.cell()}")
    print(f"  all                                 {total.cell()}")
    print()


# ----------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="run CSVs, folders or tar archives")
    ap.add_argument("--baseline", default=str(DEFAULT_BASELINE), help="committed baseline.csv")
    ap.add_argument("--gate", type=float, default=0.01, help="gate threshold (fraction; 0.01)")
    ap.add_argument("--min-trials", type=int, default=60, help="counted trials a run needs (60)")
    ap.add_argument("--trials", type=int, default=15, help="worst trials to list (15)")
    ap.add_argument("--type-distance", type=float, default=0.004,
                    help="largest median |offset difference| within a machine type (0.004)")
    a = ap.parse_args()

    base, ident = read_baseline(a.baseline)
    with tempfile.TemporaryDirectory(prefix="class-factor-") as tmp:
        tmp = pathlib.Path(tmp)
        files = input_files(a.inputs, tmp)
        labels = {}
        for f in files:
            try:
                rel = f.relative_to(tmp)
                labels[f] = str(rel)
            except ValueError:
                labels[f] = os.path.relpath(f)
        runs = read_runs(files, labels)

    # Eligible runs and their offsets.
    skipped = collections.Counter()
    per_gpu = collections.defaultdict(list)
    flops, pct_copy, bws = collections.defaultdict(bool), collections.defaultdict(list), []
    for (uuid, run_id), run in sorted(runs.items()):
        if not uuid:
            skipped["no gpu_uuid"] += 1
            continue
        if run["ab"] != {""}:
            skipped["A/B or paired (ab_revision set)"] += 1
            continue
        if any(as_float(s) != 1.0 for s in run["scale"]):
            skipped["work_scale != 1"] += 1
            continue
        off = {}
        for trial, st in run["trials"].items():
            if trial not in ident:
                continue
            module, blesser = ident[trial]
            med = as_float(st.get("median"))
            if st.get("module") != module or uuid == blesser or not med or med <= 0:
                continue
            off[trial] = med / base[trial]["time"] - 1.0
            flops[trial] |= "flops" in st
            p = as_float(st.get("pct_of_copy_bandwidth"))
            if p is not None:
                pct_copy[trial].append(p)
        if len(off) < a.min_trials:
            skipped[f"fewer than {a.min_trials} baseline-identical foreign trials"] += 1
            continue
        bw = as_float(run["copy_bw"])
        if bw:
            bws.append(bw)
        run["off"] = off
        per_gpu[uuid].append(run)
    single = [g for g, rs in per_gpu.items() if len(rs) < 2]
    for g in single:
        skipped["run of a GPU with one eligible run"] += len(per_gpu.pop(g))
    if not per_gpu:
        sys.exit("class-factor: no GPU with two eligible runs")

    copy_bw = statistics.median(bws) if bws else 4217.0
    trials = sorted({t for rs in per_gpu.values() for r in rs for t in r["off"]})
    cls = {
        t: classify(t, base, flops[t], statistics.median(pct_copy[t]) if pct_copy[t] else None, copy_bw)
        for t in trials
    }

    print(f"baseline: {os.path.relpath(a.baseline)}; blessing GPUs (trials): "
          + ", ".join(f"{g[:12]} ({n})" for g, n in
                      collections.Counter(b for _, b in ident.values()).most_common()))
    print(f"run CSVs read: {len(runs)} runs; skipped: "
          + "; ".join(f"{n} {why}" for why, n in skipped.items()))
    print(f"gate: |residual| > {a.gate * 100:g} %; copy bandwidth for the class rule: {copy_bw:.0f} GB/s")
    print()
    print("Bound classes (trials):")
    by_class = collections.defaultdict(list)
    for t in trials:
        by_class[cls[t]].append(t)
    for c in CLASSES + (HOST,):
        names = by_class.get(c, [])
        print(f"  {c:9s} {len(names):2d}: " + ", ".join(names))
    print()

    print("Runs used (run 1 is each GPU's reference for item 4):")
    for uuid, rs in sorted(per_gpu.items(), key=lambda kv: kv[1][0]["run_id"]):
        rs.sort(key=lambda r: r["run_id"])
        for i, r in enumerate(rs, 1):
            print(f"  {uuid[:12]} run {i}: {r['run_id']} commit {r['commit'][:7]} "
                  f"{len(r['off'])} trials  {r['source']}")
    print()

    gate = a.gate
    total = {k: Tally(gate) for k in ("gpu_in", "cls_in", "gpu_out", "cls_out", "ref", "raw")}
    host_total = {k: Tally(gate) for k in ("raw", "ref")}
    all_diffs = []
    rows, spreads = [], []
    worst_trial = collections.defaultdict(lambda: {"cls_in": [], "ref": [], "raw": []})
    for uuid, rs in sorted(per_gpu.items(), key=lambda kv: kv[1][0]["run_id"]):
        first = rs[0]
        t1 = {k: Tally(gate) for k in total}
        th = {k: Tally(gate) for k in host_total}
        diffs, factors = [], []
        class_offs = collections.defaultdict(list)
        gated1 = {t: o for t, o in first["off"].items() if cls[t] != HOST}
        f_gpu1 = statistics.median(gated1.values())
        f_cls1 = class_factors(gated1, cls)
        for i, r in enumerate(rs):
            gated = {t: o for t, o in r["off"].items() if cls[t] != HOST}
            f_gpu = statistics.median(gated.values())
            f_cls = class_factors(gated, cls)
            factors.append(f_gpu)
            for t, o in gated.items():
                class_offs[cls[t]].append(o)
                t1["raw"].add(o)
                worst_trial[t]["raw"].append(o)
                t1["gpu_in"].add(corrected(o, f_gpu))
                res = corrected(o, f_cls[cls[t]])
                t1["cls_in"].add(res)
                worst_trial[t]["cls_in"].append(res)
            for t, o in r["off"].items():
                if cls[t] == HOST:
                    th["raw"].add(o)
            if i == 0:
                continue
            for t, o in r["off"].items():
                if t not in first["off"]:
                    continue
                ref = corrected(o, first["off"][t])
                if cls[t] == HOST:
                    th["ref"].add(ref)
                    continue
                diffs.append(abs(o - first["off"][t]))
                t1["ref"].add(ref)
                worst_trial[t]["ref"].append(ref)
                t1["gpu_out"].add(corrected(o, f_gpu1))
                if cls[t] in f_cls1:
                    t1["cls_out"].add(corrected(o, f_cls1[cls[t]]))
        for k in total:
            total[k].merge(t1[k])
        for k in host_total:
            host_total[k].merge(th[k])
        all_diffs += diffs
        rows.append((uuid, len(rs), factors, diffs, t1, th))
        spreads.append((uuid, {c: (min(v), max(v)) for c, v in class_offs.items()}))

    print("Per GPU (counts are (run, trial) pairs with |residual| > gate / pairs, then the largest |residual|;")
    print(" 'in' = factors fitted on the same run, 'out' = factors of run 1 applied to later runs):")
    hdr = ("GPU", "runs", "factor/run", "|o_k-o_1| med p90", "raw offset", "1 factor in",
           "class in", "1 factor out", "class out", "own run 1")
    w = (12, 4, 22, 17, 15, 15, 15, 15, 15, 15)
    print("  " + " ".join(h.ljust(n) for h, n in zip(hdr, w)))
    for uuid, n, factors, diffs, t1, _ in rows:
        cells = (
            uuid[:12], str(n), " ".join(pct(f) for f in factors),
            f"{pct(statistics.median(diffs), False)} {pct(quantile(diffs, 0.9), False)}",
            t1["raw"].cell(), t1["gpu_in"].cell(), t1["cls_in"].cell(),
            t1["gpu_out"].cell(), t1["cls_out"].cell(), t1["ref"].cell(),
        )
        print("  " + " ".join(c.ljust(m) for c, m in zip(cells, w)))
    cells = (
        "all", str(sum(r[1] for r in rows)), "",
        f"{pct(statistics.median(all_diffs), False)} {pct(quantile(all_diffs, 0.9), False)}",
        total["raw"].cell(), total["gpu_in"].cell(), total["cls_in"].cell(),
        total["gpu_out"].cell(), total["cls_out"].cell(), total["ref"].cell(),
    )
    print("  " + " ".join(c.ljust(m) for c, m in zip(cells, w)))
    print()

    print("Spread of the offsets within each class, per GPU (min..max over its runs):")
    print("  " + "GPU".ljust(12) + " " + " ".join(c.ljust(17) for c in CLASSES))
    for uuid, sp in spreads:
        print("  " + uuid[:12].ljust(12) + " " + " ".join(
            (f"{pct(sp[c][0])}..{pct(sp[c][1])}" if c in sp else "-").ljust(17) for c in CLASSES))
    print()

    machine_types(per_gpu, cls, gate, a.type_distance)

    print("Host-bound transfers (not in the counts above):")
    for uuid, n, _, _, _, th in rows:
        print(f"  {uuid[:12]}  raw offset {th['raw'].cell():17s} own run 1 {th['ref'].cell()}")
    print(f"  all           raw offset {host_total['raw'].cell():17s} own run 1 {host_total['ref'].cell()}")
    print()

    print(f"Trials with the most (run, trial) pairs over the gate after the class factor (in sample),")
    print("with their raw offsets across GPUs and the residual against the GPU's own run 1:")
    print("  " + "trial".ljust(45) + " class      raw offset min..max  class-in >gate  max    own-run-1 >gate  max")
    order = sorted(
        (t for t in worst_trial if cls[t] != HOST),
        key=lambda t: (-sum(abs(x) > gate for x in worst_trial[t]["cls_in"]),
                       -max(abs(x) for x in worst_trial[t]["cls_in"])),
    )
    for t in order[: a.trials]:
        wt = worst_trial[t]
        ci, rf, raw = wt["cls_in"], wt["ref"], wt["raw"]
        print("  " + t.ljust(45) + f" {cls[t]:10s} {pct(min(raw))}..{pct(max(raw))}".ljust(30)
              + f" {sum(abs(x) > gate for x in ci):3d}/{len(ci):<3d} {pct(max(map(abs, ci)), False):>6s}"
              + f"   {sum(abs(x) > gate for x in rf):3d}/{len(rf):<3d}"
              + f" {pct(max(map(abs, rf)), False) if rf else '-':>6s}")


if __name__ == "__main__":
    main()
