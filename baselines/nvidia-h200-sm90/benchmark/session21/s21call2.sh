#!/usr/bin/env bash
# Session 21, call 2: the case table handed to suite::main as a value (kernelgate::case::Table), and
# the suite binary's own --partition count:K/N. The whole suite twice (lesson trials from the
# table, the planted family from the library) and compare; then the suite as two shards, one
# after the other on this GPU as two jobs of a matrix would run it, and the shards' trials against
# the whole run's; then the planted family (KERNELGATE_PLANTED=1) twice.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name '*.ncu-rep' -delete; find $W -name samples.csv -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
B=$PWD/.gpu/bin
for i in 1 2; do
  KERNELGATE_OUT_DIR=$W/r$i $B/kernels > $W/r$i.log 2>&1
  echo "r$i: exit $?; $(grep -h 'test result' $W/r$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/r$i.log | cut -c1-200 | head -2
  t r$i; pack
done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline))
$B/kernelgate compare ${b[0]} ${b[1]} > $W/cmp.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp.txt | cut -c1-140 | head -6
for k in 1 2; do
  KERNELGATE_OUT_DIR=$W/s$k $B/kernels --partition count:$k/2 > $W/s$k.log 2>&1
  echo "shard $k/2: exit $?; $(grep -h 'test result' $W/s$k.log | tail -1 | cut -c1-150)"
  grep -h "partition\|timed trials:\|kernelgate: H200\|NVIDIA H200" $W/s$k.log | cut -c1-200 | head -4
  t s$k; pack
done
names() { grep -hoE "^test [^ ]+" "$@" | sort; }
names $W/r1.log > $W/whole.txt; names $W/s1.log $W/s2.log > $W/shards.txt
echo "trials: whole $(wc -l < $W/whole.txt), shards $(wc -l < $W/shards.txt), in both shards $(names $W/s1.log | comm -12 - <(names $W/s2.log) | wc -l), differ $(diff $W/whole.txt $W/shards.txt | grep -c '^[<>]')"
for i in 1 2; do
  KERNELGATE_PLANTED=1 KERNELGATE_OUT_DIR=$W/p$i $B/kernels planted/too_fast planted/wrong_later > $W/planted$i.log 2>&1
  echo "planted$i: exit $?; $(grep -h 'test result' $W/planted$i.log | tail -1 | cut -c1-150)"
  grep -hE "^test planted" $W/planted$i.log | cut -c1-160 | head -4
done
t end; pack
