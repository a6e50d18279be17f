#!/usr/bin/env bash
# Session 21, call 1: the Project value (kernelgate.toml) on the H200. The whole suite twice in
# this repository (its kernelgate.toml keeps every default) against the committed baseline; a
# whole-suite A/A through the paired path once (KERNELGATE_AB=HEAD reads the kernels at HEAD
# through the project's folders); then a project elsewhere: a copy of the kernels in
# /tmp/pj/gpu/src/cuda, a kernelgate.toml naming them, its baselines, history and output folder,
# run from a subfolder: bless the transpose family, then gate it twice against that bless.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b || exit 9; done; chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
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
KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa $B/kernels --skip compile/ > $W/aa.log 2>&1
echo "aa: exit $?; $(grep -h 'test result' $W/aa.log | tail -1 | cut -c1-150)"
grep -h "timed trials:\|A/B" $W/aa.log | cut -c1-300 | head -4
grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid)" $W/aa.log | cut -c1-200 | head -8
t aa; pack
P=/tmp/pj/gpu; rm -rf /tmp/pj; mkdir -p $P/src/cuda $P/tools/sub; cp kernels/*.cu $P/src/cuda/
printf 'kernels = ["src/cuda"]\nbaselines = "perf/baselines"\nhistory = "perf/history"\nout_dir = "out"\n' > $P/kernelgate.toml
(
  cd $P/tools/sub
  unset KERNELGATE_HISTORY
  KERNELGATE_BLESS=1 $B/kernels transpose/ > $W/pj-bless.log 2>&1
  echo "pj bless: exit $?; $(grep -h 'test result' $W/pj-bless.log | tail -1 | cut -c1-150)"
  grep -h "blessed\|appended" $W/pj-bless.log | cut -c1-200 | head -4
  for i in 1 2; do
    $B/kernels transpose/ > $W/pj$i.log 2>&1
    echo "pj$i: exit $?; $(grep -h 'test result' $W/pj$i.log | tail -1 | cut -c1-150)"
    grep -hE "\.\.\. " $W/pj$i.log | grep -v compile/ | cut -c1-150 | head -8
  done
  $B/kernelgate history runs > $W/pj-history.txt 2>&1; echo "pj history runs: exit $?"; head -5 $W/pj-history.txt
  $B/kernelgate baseline list > $W/pj-baselines.txt 2>&1; echo "pj baseline list: exit $?"; head -5 $W/pj-baselines.txt
)
find $P -path $P/src -prune -o -type f -print | sed "s|$P/||" | sort | head -30
cp -r $P/out $W/pj-out 2>/dev/null; cp $P/kernelgate.toml $W/
t end; pack
