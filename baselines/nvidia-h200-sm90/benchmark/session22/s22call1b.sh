#!/usr/bin/env bash
# Session 22, call 1: the lesson suite from its own crate (the workspace split). The binary of
# the last commit before the split (ef87d42, .gpu/old/, run in that commit's kernels/ tree) and the
# split's binary (.gpu/xz/, run in this tree) on one GPU: whole suite once with the old binary,
# twice with the new, compared record to record with `kernelgate compare`; then the new binary's
# whole-suite A/A through the paired path twice (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time).
set -uo pipefail
mkdir -p .gpu/bin
xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels || exit 9
chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W /tmp/none; mkdir -p $W /tmp/none
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for i in 1 2; do
  KERNELGATE_BASELINES=/tmp/none KERNELGATE_OUT_DIR=$W/new$i .gpu/bin/kernels --skip compile/ > $W/new$i.log 2>&1
  echo "new$i: exit $?; $(grep -h 'test result' $W/new$i.log | tail -1 | cut -c1-150)"
  t new$i
done
ls $W/new1/cases.json && head -c 300 $W/new1/cases.json; echo
pack

for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid)" $W/aa$i.log | cut -c1-200 | head -8
  t aa$i; pack
done
t end; pack
