#!/usr/bin/env bash
# Session 27, call 2: A/A controls. Ten same-run A/B runs of HEAD against HEAD (every kernel file
# the same at both sides, so every case is identical and not timed, but the 4 controls drawn at
# random with each run's new seed: KERNELGATE_AB_CONTROLS, default 4), then the history of their
# run CSVs and `kernelgate history quality`.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w2; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD
for i in $(seq 1 10); do
  KERNELGATE_OUT_DIR=$W/c$i timeout 50 .gpu/bin/kernels --skip compile/ > $W/c$i.log 2>&1
  echo "c$i: exit $?; $(grep -h 'test result' $W/c$i.log | tail -1 | cut -c1-120)"
  grep -h "A/A controls:" $W/c$i.log | cut -c1-220
  grep -h "^Controls\|Controls (A/A" $W/c$i/runs/*-ab.md | cut -c1-220
  t c$i
done
.gpu/bin/kernelgate history import $W/c*/runs --dir $W/hist 2>&1 | tail -1
.gpu/bin/kernelgate history quality --dir $W/hist
.gpu/bin/kernelgate history quality --dir $W/hist --format json > $W/quality.json
t end
rm -rf $W/*/runs/*-baseline; find $W -name samples.csv -delete
tar cJf $OUT/w2.txz -C /tmp w2
