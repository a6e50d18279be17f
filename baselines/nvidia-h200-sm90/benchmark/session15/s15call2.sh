#!/usr/bin/env bash
# Session 15, call 2 (templates: kernel templates instantiated from the case table by NVRTC name
# expressions, the blocksum family): the whole suite twice on one kept runner + compare; a
# whole-suite A/A through the paired path; blocksum under memcheck twice; blocksum blessed with
# ncu, ten runs of it for calibration, then gated twice against it with ncu.
set -uo pipefail
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate && chmod +x .gpu/bin/* || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
B=baselines/nvidia-h200-sm90
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i.xml .gpu/bin/kernels; grep -h "timed trials:\|where the time" $W/r$i.log | cut -c1-300; grep -h "blocksum" $W/r$i.log | grep "^test" | cut -c1-150; grep -h "^---- " $W/r$i.log | grep -v "regressed" | head -5; t r$i; pack; done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
run aa KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/aa .gpu/bin/kernels --skip compile/
grep -hE "timed trials:|where the time" $W/aa.log | cut -c1-250; grep -h "blocksum" $W/aa.log | grep "^test" | cut -c1-150; t aa; pack
for i in 1 2; do run s$i KERNELGATE_SANITIZE=memcheck KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/s$i .gpu/bin/kernels blocksum/; grep -h "memcheck" $W/s$i.log | cut -c1-200 | head -3; done; t sanitize
run bless KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/bless .gpu/bin/kernels --skip compile/ blocksum/
grep -h "blocksum\|blessed" $W/bless.log | grep -v "^test " | cut -c1-220 | head -8; t bless; pack
for i in $(seq 10); do KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/cal .gpu/bin/kernels --skip compile/ blocksum/ > $W/cal-$i.log 2>&1; echo -n "C$i:$? "; done; echo; t cal
mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/
for i in 1 2; do run g$i KERNELGATE_NCU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/g$i .gpu/bin/kernels blocksum/; grep -h "^test blocksum" $W/g$i.log | cut -c1-150; done
t end; pack
