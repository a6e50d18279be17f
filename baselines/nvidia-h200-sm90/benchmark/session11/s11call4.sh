#!/usr/bin/env bash
# Session 11, call 4: bless the CUB cases with ncu, then gate them twice; the planted guard cases twice each.
set -uo pipefail
T0=$(date +%s); W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"; }
B="baselines/nvidia-h200-sm90"
run bless KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_OUT_DIR=$W/bless .gpu/bin/kernels --skip compile/ /cub/
mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/; grep -h "cub.*->\|blessed\|bless" $W/bless.log | cut -c1-200 | head -8; pack; t bless
for i in 1 2; do run cub$i KERNELGATE_OUT_DIR=$W/cub$i .gpu/bin/kernels --skip compile/ /cub/; grep -E "^(reduction|histogram)/cub" $W/cub$i.log | cut -c1-175; done; pack; t cub
for i in 1 2; do
  run fast$i KERNELGATE_PLANTED=1 KERNELGATE_FAIL_ON=regressed,invalid KERNELGATE_OUT_DIR=$W/p$i .gpu/bin/kernels --exact planted/too_fast/16777216
  grep -h "too_fast" $W/fast$i.log | grep -v "^test " | cut -c1-700 | head -3
  run later$i KERNELGATE_PLANTED=1 KERNELGATE_OUT_DIR=$W/p$i .gpu/bin/kernels --exact planted/wrong_later/4096
  awk '/^---- /,/^$/' $W/later$i.log | cut -c1-600 | head -4
done; pack; t end
