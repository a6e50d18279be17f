#!/usr/bin/env bash
# Session 24, call 4: the shipped suite's whole-suite A/A through the paired path, twice, with the
# binary that compiles each A/B side with its own options (the suite has no [nvrtc] options: both
# sides compile with none, as before).
set -uo pipefail
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && chmod +x .gpu/bin/kernels || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w4; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150) [t=$(( ${EPOCHREALTIME%.*} - T0 )) s]"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  find $W -name samples.csv -delete; tar cJf $OUT/w4.txz -C /tmp w4
done
