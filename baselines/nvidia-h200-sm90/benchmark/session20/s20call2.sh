#!/usr/bin/env bash
# Session 20, call 2: `kernelgate bisect c0 HEAD transpose/shared_padded` with KERNELGATE_NCU=1 in
# the synthetic history of call 1, twice (the steps now read the run CSV the suite names in
# KERNELGATE_RUN_FILE; call 1's binary listed runs/ and stopped at ncu's -raw.csv); then the whole
# suite as an A/A through the paired path twice (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time:
# the warm-up now ends at KERNELGATE_TIMEOUT, a change to the timing path).
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
B=$PWD/.gpu/bin
(
  cd .g1/repo
  good=$(git rev-list --max-parents=0 HEAD)
  for i in 1 2; do
    KERNELGATE_NCU=1 $B/kernelgate bisect $good HEAD transpose/shared_padded --suite $B/kernels --out $W/bisect$i > $W/bisect$i.log 2>&1
    echo "bisect$i: exit $?"; cut -c1-260 $W/bisect$i.log | tail -9; t bisect$i; pack
  done
)
for i in 1 2; do
  [ $(( ${EPOCHREALTIME%.*} - T0 )) -lt 330 ] || { echo "aa$i: skipped (time)"; continue; }
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:\|A/B" $W/aa$i.log | cut -c1-300 | head -4
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid)" $W/aa$i.log | cut -c1-200 | head -8
  t aa$i; pack
done
t end
