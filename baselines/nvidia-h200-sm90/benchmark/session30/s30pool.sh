#!/usr/bin/env bash
# Session 30, calls 2-4: the pool's nightly on one physical GPU, the product path (scripts/nightly
# with KERNELGATE_REFERENCE=gpu, no ncu, no git notes, the whole suite but its compile trials).
#
#   bash s30pool.sh NAME [COMMIT]      # from the project root; COMMIT: KERNELGATE_COMMIT to record
#   NIGHTS=1 bash s30pool.sh NAME      # step 3 and the first nightly only (a short call)
#
# The history starts with the run CSVs carried in .gpu/pool/ (xz-compressed or not) (the nightlies of the GPUs before
# this one), imported. Then:
#  1. four nightlies of unchanged code. The first three find the GPU new to the pool (fewer than
#     three runs of its own): the nightly times it by a same-run A/B run against the last commit
#     that passed, if one did (another commit's run, on another GPU), else says "not judged" (4).
#     The fourth gates against the GPU's own three runs: expected pass.
#  2. plant.py (copy_vec4 +4.5 % input reads, formula_a +16 FMAs), twice, each with a copy of the
#     history after step 1: vectorization/ and divergence/ gated against the GPU's own runs.
#  3. (run first) when .gpu/pool holds runs: the planted run twice, each with a copy of the history
#     before step 1 (the GPU new to the pool): the A/B chain against the last commit that passed
#     must catch it.
set -uo pipefail
exec > >(tee -a "$OUT/log.txt") 2>&1   # what was printed comes back even if the call is cut short
NAME=${1:?usage: s30pool.sh NAME [COMMIT]}
ROOT=$PWD
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/$NAME; H=$W/hist; rm -rf $W; mkdir -p $W/runs $H
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_REFERENCE=gpu KERNELGATE_NCU=0 KERNELGATE_NOTES=0 KERNELGATE_HISTORY=$H
[ -n "${2:-}" ] && export KERNELGATE_COMMIT=$2
if [ -d .gpu/pool ]; then find .gpu/pool -name "*.xz" -exec xz -d {} +; .gpu/bin/kernelgate history import .gpu/pool --dir $H 2>&1 | tail -1; fi
night() {  # night NAME HISTORY [libtest args]
  local name=$1 hist=$2; shift 2
  KERNELGATE_HISTORY=$hist timeout 280 scripts/nightly $W/$name -- --skip compile/ "$@" > $W/$name.txt 2>&1
  local rc=$?
  echo "$name: exit $rc; suite: $(grep -h 'test result' $W/$name/suite.log | tail -1 | cut -c1-110)"
  grep -hE "baseline's times were blessed|WARNING: the baseline was blessed" $W/$name/suite.log | head -1 | cut -c1-230
  grep -hvE '^\s*$' $W/$name/gate.txt | head -6 | cut -c1-260
  [ -f $W/$name/ab.log ] && { grep -h "A/A controls:\|test result" $W/$name/ab.log | cut -c1-200
    grep -hE "^test .*\.\.\. .*(regressed|improved|ambiguous)" $W/$name/ab.log | cut -c1-200 | head -6; }
  grep -h "^nightly:" $W/$name.txt | tail -2 | cut -c1-200
  # The suite's run CSV as NAME-night.csv, an A/B run's after it (a GPU new to the pool) as NAME-night-ab.csv.
  local csv i=0; while read -r csv; do [ -f "$csv" ] || continue
    if [ $i = 0 ]; then cp "$csv" $W/runs/$NAME-$name.csv; else cp "$csv" $W/runs/$NAME-$name-ab.csv; fi; i=$((i+1))
  done < <(cat $W/$name/run-csv.txt 2>/dev/null)
  t $name
}
cp -r $H $W/h0
# libtest takes one filter: the other families are skipped instead.
ONLY=(); for f in blocksum coalescing cub histogram launch layout matmul occupancy readonly reduction smem transfers transpose; do ONLY+=(--skip $f/); done
cp -r kernels $W/kernels.orig
# 3 first (a history that holds a passing commit): the planted run on a GPU new to the pool.
if [ -n "$(ls -A .gpu/pool 2>/dev/null)" ]; then
  python3 baselines/nvidia-h200-sm90/benchmark/session30/plant.py
  for i in 1 2; do cp -r $W/h0 $W/hc$i; night c$i $W/hc$i "${ONLY[@]}"; done
  rm -rf kernels && cp -r $W/kernels.orig kernels
fi
for i in $(seq 1 "${NIGHTS:-4}"); do night n$i $H; done
if [ "${NIGHTS:-4}" -ge 4 ]; then
.gpu/bin/kernelgate history gate --run $W/runs/$NAME-n4.csv --reference gpu --format json > $W/n4-gate.json 2>/dev/null
python3 - $W/n4-gate.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    c = collections.Counter(x["finding"] for x in r["reasons"])
    print("n4 gate json:", d["outcome"], "| run", r["run"]["run_id"], r["outcome"], "| reasons:", dict(c))
    for x in r["reasons"][:4]: print("  ", x["finding"], x["trial"], x["text"][:200])
PY
python3 baselines/nvidia-h200-sm90/benchmark/session30/plant.py
for i in 1 2; do cp -r $H $W/hp$i; night p$i $W/hp$i "${ONLY[@]}"; done
rm -rf kernels && cp -r $W/kernels.orig kernels
fi
t end
tar cJf $OUT/$NAME-runs.txz -C $W runs
rm -rf $W/h0 $W/hp* $W/hc* $W/hist $W/kernels.orig; find $W -name samples.csv -delete; find $W -name 'report.html' -delete
tar cJf $OUT/$NAME.txz -C /tmp $NAME
