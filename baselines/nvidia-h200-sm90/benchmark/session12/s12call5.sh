#!/usr/bin/env bash
# Session 12, call 5: the review's refactor of the staged download (one generic function); the
# whole suite twice, default options, on one runner.
set -uo pipefail
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
for i in 1 2; do KERNELGATE_REQUIRE_GPU=1 KERNELGATE_OUT_DIR=$W/r$i .gpu/bin/kernels > $W/r$i.log 2>&1; echo "r$i: exit $? $(grep -h 'test result' $W/r$i.log | cut -c1-120)"; grep -h "where the time" $W/r$i.log | cut -c1-300; grep -c "^---- .*wrong\|expected .*, got" $W/r$i.log; done
tar cJf $OUT/w.txz -C /tmp w
