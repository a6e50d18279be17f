#!/usr/bin/env bash
# Session 15, call 1 (main at 51f93fd: function attributes on the launch path, the smem family):
# the whole suite twice on one kept runner + compare; a whole-suite A/A through the paired path;
# the smem family blessed with ncu, ten runs of it for calibration, then gated twice against it.
set -uo pipefail
# As run: its t() printed no seconds (the runner has no bc).
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate && chmod +x .gpu/bin/* || exit 9
T0=$EPOCHREALTIME; W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(echo "$EPOCHREALTIME - $T0" | bc | cut -d. -f1) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
B=baselines/nvidia-h200-sm90
git log --oneline -1 2>&1 | head -1
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i.xml .gpu/bin/kernels; grep -h "timed trials:\|where the time" $W/r$i.log | cut -c1-300; grep -h "^---- \|FAILED" $W/r$i.log | head -12; t r$i; pack; done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
run aa KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/aa .gpu/bin/kernels --skip compile/
grep -hE "timed trials:|where the time|regressed|improved|ambiguous" $W/aa.log | grep -v "^test" | cut -c1-250 | head -8; t aa; pack
run bless KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/bless .gpu/bin/kernels --skip compile/ smem/
grep -h "smem\|blessed" $W/bless.log | grep -v "^test " | cut -c1-220 | head -12; t bless; pack
for i in $(seq 10); do KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/cal .gpu/bin/kernels --skip compile/ smem/ > $W/cal-$i.log 2>&1; echo -n "C$i:$? "; done; echo; t cal
mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/
for i in 1 2; do run g$i KERNELGATE_NCU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/g$i .gpu/bin/kernels smem/; grep -h "smem" $W/g$i.log | cut -c1-220 | head -8; done
t end; pack
