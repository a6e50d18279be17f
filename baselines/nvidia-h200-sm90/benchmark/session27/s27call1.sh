#!/usr/bin/env bash
# Session 27, call 1: a partitioned run merged (kernelgate plan, --partition plan:..., kernelgate
# merge) against the unpartitioned run, twice; the whole suite A/A through the paired path each
# time (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time, compile trials skipped).
#  1. The trial list (--list) and a plan of 2 shards, weighted by the committed runs' times.
#  2. Twice: the whole suite unpartitioned, then shard 1 and shard 2 one after the other; merge
#     the shards with the plan, merge the whole run, compare the verdicts trial by trial.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w1; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
KERNELGATE_OUT_DIR=$W/list .gpu/bin/kernels --list > /dev/null 2>&1
.gpu/bin/kernelgate history import baselines/nvidia-h200-sm90/runs --dir $W/hist 2>&1 | tail -1
KERNELGATE_OUT_DIR=$W/list .gpu/bin/kernelgate plan --shards 2 --gpu nvidia-h200-sm90 --dir $W/hist --out $W/plan.json > $W/matrix.json
python3 -c "
import json; m=json.load(open('$W/matrix.json'))
for j in m['include']: print('shard', j['shard'], j['trials'], 'trials,', j['seconds'], 's planned')"
P1=$(python3 -c "import json; print(json.load(open('$W/matrix.json'))['include'][0]['partition'])")
P2=$(python3 -c "import json; print(json.load(open('$W/matrix.json'))['include'][1]['partition'])")
t plan
export KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time
for i in 1 2; do
  KERNELGATE_OUT_DIR=$W/full$i timeout 200 .gpu/bin/kernels --skip compile/ > $W/full$i.log 2>&1
  echo "full$i: exit $?; $(grep -h 'test result' $W/full$i.log | tail -1 | cut -c1-150)"; t full$i
  for k in 1 2; do
    P=$([ $k = 1 ] && echo "$P1" || echo "$P2")
    KERNELGATE_OUT_DIR=$W/s$i-$k timeout 150 .gpu/bin/kernels --skip compile/ --partition "$P" > $W/s$i-$k.log 2>&1
    echo "s$i-$k: exit $?; $(grep -h -- '--partition' $W/s$i-$k.log | head -1 | cut -c1-120); $(grep -h 'test result' $W/s$i-$k.log | tail -1 | cut -c1-150)"
    t s$i-$k
  done
  .gpu/bin/kernelgate merge --plan $W/plan.json --json $W/merged$i.json --markdown $W/merged$i.md $W/s$i-1 $W/s$i-2; echo "merge shards $i: exit $?"
  .gpu/bin/kernelgate merge --json $W/whole$i.json --markdown $W/whole$i.md $W/full$i; echo "merge whole $i: exit $?"
  python3 - $W/merged$i.json $W/whole$i.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
va = {t: v["nvidia-h200-sm90"]["verdict"] for t, v in a["trials"].items()}
vb = {t: v["nvidia-h200-sm90"]["verdict"] for t, v in b["trials"].items()}
same = sum(1 for t in va if vb.get(t) == va[t])
print(f"shards merged: {len(va)} trials, {a['status']}, missing {len(a['missing'])}; whole: {len(vb)} trials, {b['status']}; "
      f"same verdict {same} of {len(set(va) | set(vb))}; differ: {[t for t in set(va) | set(vb) if va.get(t) != vb.get(t)]}")
from collections import Counter
print("shards:", dict(Counter(va.values())), "whole:", dict(Counter(vb.values())))
d = [abs(v["nvidia-h200-sm90"]["delta_pct"]) for v in a["trials"].values() if v["nvidia-h200-sm90"].get("delta_pct") is not None]
print(f"max |delta| merged shards: {max(d):.2f} %")
PY
done
t end
rm -rf $W/*/runs/*-baseline $W/hist; find $W -name samples.csv -delete
tar cJf $OUT/w1.txz -C /tmp w1
