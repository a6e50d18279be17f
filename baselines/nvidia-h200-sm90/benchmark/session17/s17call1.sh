#!/usr/bin/env bash
# Session 17, call 1: the session's binary on one kept runner. The whole suite twice + compare;
# a whole-suite A/A through the paired path twice (KERNELGATE_AB=HEAD, identical kernels timed:
# the runner's HEAD holds the same kernels/ as this tree, printed below); a kernel renamed in the
# runner's tree (the message names the constant to rename); ncu over vectorization/ and memcheck
# over blocksum/, twice each.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
echo "runner .git HEAD: $(cat .git/HEAD 2>/dev/null) $(cat .git/$(sed -n 's/^ref: //p' .git/HEAD 2>/dev/null) 2>/dev/null)"
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
summary() { grep -h "timed trials:\|where the time\|recorded under\|kernels this run\|built from commit\|verdicts\|A/B" $W/$1.log | cut -c1-330 | head -12; grep -h "^---- \|FAILED" $W/$1.log | head -30; }
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i.xml .gpu/bin/kernels; summary r$i; t r$i; pack; done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
for i in 1 2; do run aa$i KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i .gpu/bin/kernels --skip compile/; summary aa$i; grep -hcE "\.\.\. ok$" $W/aa$i.log; t aa$i; pack; done
cp kernels/transpose.cu $W/transpose.cu.orig; sed -i 's/void transpose_naive(/void transpose_naive_renamed(/' kernels/transpose.cu
run e2 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/e2 .gpu/bin/kernels transpose/naive; grep -h "no longer declares" $W/e2.log | sort | uniq -c | cut -c1-600; t e2
cp $W/transpose.cu.orig kernels/transpose.cu; pack
for i in 1 2; do run n$i KERNELGATE_NCU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/n$i .gpu/bin/kernels --skip compile/ vectorization/; grep -h "profiled\|child" $W/n$i.log | grep -v "^test" | cut -c1-200 | head -3; t n$i; done; pack
for i in 1 2; do run m$i KERNELGATE_SANITIZE=memcheck KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/m$i .gpu/bin/kernels --skip compile/ blocksum/; grep -h "trials failed\|child" $W/m$i.log | grep -v "^test" | cut -c1-200 | head -3; t m$i; done
t end; pack
