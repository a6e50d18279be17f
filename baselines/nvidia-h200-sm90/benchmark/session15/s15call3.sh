#!/usr/bin/env bash
# Session 15, call 3 (9ebd8d0: runs keyed to HEAD only where HEAD holds the built sources; module
# identity without NVRTC's per-compile module id): the whole suite twice on one kept runner +
# compare; blocksum/ and the CUB cases (whose identity changed) re-blessed with ncu, ten runs of
# each for calibration, then each gated twice with ncu against the new bless.
set -uo pipefail
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate && chmod +x .gpu/bin/* || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
git log --oneline -1 2>&1 | cut -c1-60
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
B=baselines/nvidia-h200-sm90
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i.xml .gpu/bin/kernels; grep -h "recorded under\|timed trials:\|where the time" $W/r$i.log | cut -c1-300; grep -h "^---- " $W/r$i.log | head -8; t r$i; pack; done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
for f in blocksum/ /cub/; do
  n=$(echo $f | tr -d /)
  run bless-$n KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/bless-$n .gpu/bin/kernels --skip compile/ $f
  grep -h "blessed" $W/bless-$n.log | cut -c1-200 | head -3; t bless $n
  for i in $(seq 10); do KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/cal-$n .gpu/bin/kernels --skip compile/ $f > $W/cal-$n-$i.log 2>&1; echo -n "C$i:$? "; done; echo; t cal $n; pack
done
mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/
for f in blocksum/ /cub/; do for i in 1 2; do n=$(echo $f | tr -d /); run g-$n-$i KERNELGATE_NCU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/g-$n-$i .gpu/bin/kernels --skip compile/ $f; grep -h "^test " $W/g-$n-$i.log | cut -c1-150; done; done
t end; pack
