#!/usr/bin/env bash
# Session 13, call 2: the heartbeat of the checked children (crash isolation over the whole
# suite, compute-sanitizer over a small filter), KERNELGATE_RUN_FILE, and a bless's summary,
# each twice, every line stamped with the time it arrived.
set -uo pipefail
# The binaries travel xz-compressed (the carry limit).
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate && chmod +x .gpu/bin/* || exit 9
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid --format=csv,noheader | tee $W/gpu.txt
stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
gap() { awk 'NR>1{g=$1-p; if(g>m){m=g; at=NR}} {p=$1} END{printf "longest gap %.1f s before line %d\n", m, at}' "$1"; }
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 KERNELGATE_ISOLATE=1 KERNELGATE_RUN_FILE=$W/run-file.txt KERNELGATE_OUT_DIR=$W/i$i .gpu/bin/kernels 2>&1 | stamp > $W/i$i.log; echo "i$i: exit ${PIPESTATUS[0]} $(grep -h 'test result' $W/i$i.log | cut -c1-140)"
  gap $W/i$i.log; grep -h "crash isolation\|isolat\|checking\|timed trials" $W/i$i.log | cut -c1-220 | head -8
done
echo "run file:"; cat $W/run-file.txt
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 KERNELGATE_SANITIZE=memcheck KERNELGATE_OUT_DIR=$W/s$i .gpu/bin/kernels divergence/ 2>&1 | stamp > $W/s$i.log; echo "s$i: exit ${PIPESTATUS[0]} $(grep -h 'test result' $W/s$i.log | cut -c1-140)"
  gap $W/s$i.log; grep -h "memcheck" $W/s$i.log | cut -c1-220 | head -6
done
cp -r baselines $W/bl
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 KERNELGATE_BLESS=1 KERNELGATE_BASELINES=$W/bl KERNELGATE_OUT_DIR=$W/b$i .gpu/bin/kernels transpose/ 2>&1 | stamp > $W/b$i.log; echo "b$i: exit ${PIPESTATUS[0]}"
  sed -n '/kernelgate: blessed/,/every change/p' $W/b$i.log | cut -c1-200; wc -l $W/b$i/runs/*-blessed-*.txt
done
rm -rf $W/bl; find $W -name '*.ncu-rep' -delete
tar cJf $OUT/w.txz -C /tmp w
