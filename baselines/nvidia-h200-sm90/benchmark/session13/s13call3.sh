#!/usr/bin/env bash
# Session 13, call 3: the session's last binary (all branches merged), the whole suite twice,
# default options, on one runner; compare the two runs.
set -uo pipefail
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate && chmod +x .gpu/bin/* || exit 9
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 KERNELGATE_OUT_DIR=$W/r$i .gpu/bin/kernels > $W/r$i.log 2>&1; echo "r$i: exit $? $(grep -h 'test result' $W/r$i.log | cut -c1-140)"
  grep -h "timed trials:\|where the time" $W/r$i.log | cut -c1-240; grep -c "wrong\|expected .*, got" $W/r$i.log
done
.gpu/bin/kernelgate compare $W/r1/runs/*-baseline $W/r2/runs/*-baseline > $W/cmp-r1-r2.txt 2>&1; echo "compare: exit $?"; tail -1 $W/cmp-r1-r2.txt
tar cJf $OUT/w.txz -C /tmp w
