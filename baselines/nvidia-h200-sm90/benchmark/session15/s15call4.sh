#!/usr/bin/env bash
# Session 15, call 4: a fresh user's templated family (tilescan: CUB BlockLoad/BlockScan/BlockStore,
# three instances by name expression, added from the docs; its clone's commit a775307), twice.
set -uo pipefail
mkdir -p /tmp/fb && xz -dc .gpu-run/fresh/kernels.xz > /tmp/fb/kernels && chmod +x /tmp/fb/kernels || exit 9
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
for i in 1 2; do KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/t$i /tmp/fb/kernels tilescan/ > $W/t$i.log 2>&1; echo "t$i: exit $? $(grep -h 'test result' $W/t$i.log | cut -c1-120)"; grep -h "^test \|^---- \|wrong\|expected" $W/t$i.log | cut -c1-200 | head -8; done
tar cJf $OUT/w.txz -C /tmp w
