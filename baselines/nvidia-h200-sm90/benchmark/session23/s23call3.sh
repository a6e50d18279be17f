#!/usr/bin/env bash
# Session 23, call 3: the suite binary before the element types (7844d84, kept by call 2 on this
# warm machine) and after (c1cd7a8), each run twice against the committed baseline, alternating
# old, new, old, new, on one GPU; the records are compared with `kernelgate compare` afterwards.
set -uo pipefail
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && chmod +x .gpu/bin/kernels || exit 9
[[ -x .gpu/keep/kernels-old ]] || { echo "no .gpu/keep/kernels-old: not the warm machine"; exit 9; }
T0=${EPOCHREALTIME%.*}; W=/tmp/w3; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for run in old1:.gpu/keep/kernels-old new1:.gpu/bin/kernels old2:.gpu/keep/kernels-old new2:.gpu/bin/kernels; do
  name=${run%%:*}; bin=${run#*:}
  KERNELGATE_OUT_DIR=$W/$name $bin --skip compile/ > $W/$name.log 2>&1
  echo "$name: exit $?; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150) [t=$(( ${EPOCHREALTIME%.*} - T0 )) s]"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
done
find $W -name samples.csv -delete; tar cJf $OUT/w3.txz -C /tmp w3
