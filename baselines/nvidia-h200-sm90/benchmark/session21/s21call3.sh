#!/usr/bin/env bash
# Session 21, call 3: the library's planted family through the case table's for_run
# (KERNELGATE_PLANTED=1), each trial by --exact (libtest takes one filter), twice: too_fast must be
# invalid (the physics guard), wrong_later must fail its re-check after timing.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off KERNELGATE_PLANTED=1
for i in 1 2; do
  for t in planted/too_fast/16777216 planted/wrong_later/4096; do
    n=$(basename $(dirname $t))$i
    KERNELGATE_OUT_DIR=$W/$n .gpu/bin/kernels --exact $t > $W/$n.log 2>&1
    echo "$n: exit $?; $(grep -h 'test result' $W/$n.log | tail -1 | cut -c1-120)"
    grep -hE "^test planted|invalid|re-check|recheck" $W/$n.log | cut -c1-220 | head -3
  done
done
tar cJf $OUT/w.txz -C /tmp w
