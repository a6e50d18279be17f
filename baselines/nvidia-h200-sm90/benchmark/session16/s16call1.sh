#!/usr/bin/env bash
# Session 16, call 1 (main at HEAD: kernels read from kernels/ at run time, the GPU modules
# compiled ahead): the whole suite twice on one kept runner with the new binary, once with the
# previous binary (8fba979), a kernel edited and a kernel renamed in the runner's tree with no
# rebuild, ncu and memcheck over small families twice each (their child processes get the
# parent's kernels hash).
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate old-kernels; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
summary() { grep -h "timed trials:\|where the time\|recorded under\|kernels this run\|built from commit" $W/$1.log | cut -c1-330; grep -h "^---- \|FAILED" $W/$1.log | head -12; }
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i.xml .gpu/bin/kernels; summary r$i; t r$i; pack; done
run r0 KERNELGATE_OUT_DIR=$W/r0 KERNELGATE_JUNIT=$W/r0.xml .gpu/bin/old-kernels; summary r0; t r0; pack
# A kernel edited in the tree, no rebuild: a new kernel in transpose.cu (the compile trials see it,
# the cases' module changes), then transpose_naive renamed (its trials fail, naming the fix).
cp kernels/transpose.cu $W/transpose.cu.orig
printf '\nextern "C" __global__ void probe_added(float* x) { x[threadIdx.x] = 1.0f; }\n' >> kernels/transpose.cu
run e1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/e1 .gpu/bin/kernels transpose; summary e1; grep -h "probe_added\|module_sha256" $W/e1.log | cut -c1-250 | head -6; t e1
cp $W/transpose.cu.orig kernels/transpose.cu; sed -i 's/void transpose_naive(/void transpose_naive_renamed(/' kernels/transpose.cu
run e2 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/e2 .gpu/bin/kernels --skip compile/ transpose/naive; grep -h "no longer declares" $W/e2.log | cut -c1-330 | head -3; t e2
cp $W/transpose.cu.orig kernels/transpose.cu; pack
for i in 1 2; do run n$i KERNELGATE_NCU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/n$i .gpu/bin/kernels --skip compile/ vectorization/; grep -h "profil\|child" $W/n$i.log | grep -v "^test" | cut -c1-200 | head -4; t n$i; done; pack
for i in 1 2; do run m$i KERNELGATE_SANITIZE=memcheck KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/m$i .gpu/bin/kernels --skip compile/ blocksum/; grep -h "sanitiz\|memcheck\|child" $W/m$i.log | grep -v "^test" | cut -c1-200 | head -4; t m$i; done
t end; pack
