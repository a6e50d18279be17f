#!/usr/bin/env bash
# Session 19, call 1: a new user's templated family (softmax_t: `template <int BLOCK>`, <cuda/std/limits>,
# instantiated from the case table; branch trial-softmax = main + the family, added from the docs alone) on
# one kept runner: its trials twice, then the whole suite twice against the committed baseline +
# compare (the kept runner's second run).
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
summary() { grep -h "timed trials:\|where the time\|recorded under\|verdicts" $W/$1.log | cut -c1-330 | head -8; grep -h "^---- \|FAILED" $W/$1.log | head -30; }
for i in 1 2; do run f$i KERNELGATE_OUT_DIR=$W/f$i .gpu/bin/kernels softmax_t; grep -h "softmax_t" $W/f$i.log | cut -c1-250; t f$i; done; pack
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i.xml .gpu/bin/kernels; summary r$i; t r$i; pack; done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
t end; pack
