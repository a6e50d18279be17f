#!/usr/bin/env bash
# Session 12, call 3: pinned staging in the timing process only; the four files split (binary of
# the merge). The whole suite twice, default options (kept runner: one HOME), with JUnit for
# per-trial seconds, + compare; the whole suite once with ncu.
set -uo pipefail
T0=$(date +%s); W=/tmp/w; rm -rf $W; mkdir -p $W/r1 $W/r2
pack() { tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=$W/r$i/junit.xml .gpu/bin/kernels; grep -h "where the time" $W/r$i.log | cut -c1-400; t r$i; pack; done
.gpu/bin/kernelgate compare $W/r1/runs/*-baseline $W/r2/runs/*-baseline > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
grep -h "^---- " $W/r1.log $W/r2.log | sort | uniq -c | head -30
run ncu KERNELGATE_NCU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/ncu .gpu/bin/kernels
grep -h "where the time\|profiled" $W/ncu.log | cut -c1-300; t ncu
rm -f $W/*/runs/*.ncu-rep; pack; t end
