#!/usr/bin/env bash
# Session 21, call 4: the session's final binary. A whole-suite A/A through the paired path twice
# (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time: gate/paired.rs now takes its median and MAD
# constant from gate/robust.rs), then the transpose family as two --partition shards under a
# filter (each counts the other 106 trials as filtered out).
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name samples.csv -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid)" $W/aa$i.log | cut -c1-200 | head -8
  t aa$i; pack
done
for k in 1 2; do
  KERNELGATE_OUT_DIR=$W/s$k .gpu/bin/kernels transpose --partition count:$k/2 > $W/s$k.log 2>&1
  echo "shard $k/2: exit $?; $(grep -h 'test result' $W/s$k.log | tail -1 | cut -c1-150)"
  grep -h "partition" $W/s$k.log | head -1
done
t end; pack
