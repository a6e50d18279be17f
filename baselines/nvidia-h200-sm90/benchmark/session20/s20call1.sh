#!/usr/bin/env bash
# Session 20, call 1: field report G1 on the H200. In a synthetic history (.g1/repo: c0 the suite's
# kernels; c1 README only; c2 a comment in coalescing.cu; c3 the planted change, transpose's padded
# tile padded by 2 floats instead of 1: a 2-way bank conflict; c4 a comment in reduction.cu):
# the A/B run of HEAD against c0 with ncu, twice (expected: exit 3, the padded transpose's counter
# expectation broken and its verdict regressed (counter)); then `kernelgate bisect c0 HEAD` with
# KERNELGATE_NCU=1, twice (expected: exit 3, first bad commit c3).
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
B=$PWD/.gpu/bin
cd .g1/repo
git log --oneline | cat
good=$(git rev-list --max-parents=0 HEAD)
for i in 1 2; do
  KERNELGATE_AB=$good KERNELGATE_NCU=1 KERNELGATE_OUT_DIR=$W/ab$i $B/kernels --skip compile/ transpose/shared_padded > $W/ab$i.log 2>&1
  echo "ab$i: exit $?"; grep -h "regressed\|FAIL\|exit code\|test result" $W/ab$i.log | cut -c1-260 | head -12; t ab$i
done
pack
for i in 1 2; do
  KERNELGATE_NCU=1 $B/kernelgate bisect $good HEAD transpose/shared_padded --suite $B/kernels --out $W/bisect$i > $W/bisect$i.log 2>&1
  echo "bisect$i: exit $?"; cut -c1-260 $W/bisect$i.log | tail -14; t bisect$i; pack
done
t end
