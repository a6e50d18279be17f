#!/usr/bin/env bash
# Session 20, call 3: the session's final binary on one runner. The whole suite twice, default
# options against the committed baseline, with the outputs this session changed: the JUnit report
# written to /dev/stdout's copy of the log (in place) and the run file named; then `kernelgate
# compare` record to record.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
for i in 1 2; do
  KERNELGATE_OUT_DIR=$W/r$i KERNELGATE_JUNIT=/dev/stdout KERNELGATE_RUN_FILE=$W/runs.txt .gpu/bin/kernels >> $W/r$i.log 2>&1
  echo "r$i: exit $?; $(grep -h 'test result' $W/r$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:\|wrote to /dev/stdout\|<testsuite " $W/r$i.log | cut -c1-200 | head -4
  t r$i; pack
done
echo "run file:"; cat $W/runs.txt
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp.txt | cut -c1-160 | head -8
t end; pack
