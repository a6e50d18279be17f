#!/usr/bin/env bash
# Session 13, call 1: the progress lines. The whole suite twice (timing only), then with ncu twice,
# every line stamped with the time it arrived (the longest silence is computed from the stamps);
# then the fresh user's blockscan family (branch thirdparty-21's binary) twice.
set -uo pipefail
# The binaries travel xz-compressed (the carry limit).
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate && xz -dc .gpu/tp21/kernels.xz > .gpu/tp21/kernels && chmod +x .gpu/bin/* .gpu/tp21/kernels || exit 9
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
gap() { awk 'NR>1{g=$1-p; if(g>m){m=g; at=NR}} {p=$1} END{printf "longest gap %.1f s before line %d\n", m, at}' "$1"; }
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 KERNELGATE_OUT_DIR=$W/r$i .gpu/bin/kernels 2>&1 | stamp > $W/r$i.log; echo "r$i: exit ${PIPESTATUS[0]} $(grep -h 'test result' $W/r$i.log | cut -c1-140)"
done
.gpu/bin/kernelgate compare $W/r1/runs/*-baseline $W/r2/runs/*-baseline > $W/cmp-r1-r2.txt 2>&1; echo "compare: exit $?"; tail -3 $W/cmp-r1-r2.txt | cut -c1-200
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 KERNELGATE_NCU=1 KERNELGATE_OUT_DIR=$W/n$i .gpu/bin/kernels 2>&1 | stamp > $W/n$i.log; echo "n$i: exit ${PIPESTATUS[0]} $(grep -h 'test result' $W/n$i.log | cut -c1-140)"
  gap $W/n$i.log; grep -h "kernelgate: ncu\|profiling\|timed trials" $W/n$i.log | cut -c1-200
done
for i in 1 2; do
  KERNELGATE_OUT_DIR=$W/t$i .gpu/tp21/kernels blockscan/ 2>&1 | stamp > $W/t$i.log; echo "t$i: exit ${PIPESTATUS[0]}"; grep -h "^[0-9.]* test \|test result\|timed trials" $W/t$i.log | cut -c1-200
done
sed -n '/running/,/test result/p' $W/r2.log | head -30 | cut -c1-200
find $W -name '*.ncu-rep' -delete
tar cJf $OUT/w.txz -C /tmp w
