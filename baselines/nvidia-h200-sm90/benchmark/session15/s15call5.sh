#!/usr/bin/env bash
# Session 15, call 5 (4189318: module identity without NVRTC's process id): blocksum/ and the CUB
# cases re-blessed with ncu, then nine more runs of each for calibration (ten with the bless).
set -uo pipefail
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && chmod +x .gpu/bin/* || exit 9
W=/tmp/w; rm -rf $W; mkdir -p $W; B=baselines/nvidia-h200-sm90
pack() { find $W -name '*.ncu-rep' -delete; mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for f in /cub/ blocksum/; do
  n=$(echo $f | tr -d /)
  KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_OUT_DIR=$W/bless-$n .gpu/bin/kernels --skip compile/ $f > $W/bless-$n.log 2>&1; echo "bless $n: exit $? $(grep -h 'blessed' $W/bless-$n.log | cut -c1-100 | head -1)"; pack
  for i in $(seq 9); do KERNELGATE_OUT_DIR=$W/cal-$n .gpu/bin/kernels --skip compile/ $f > $W/cal-$n-$i.log 2>&1; echo -n "C$i:$? "; done; echo; pack
done
grep -h "^test " $W/cal-*-9.log | cut -c1-120
