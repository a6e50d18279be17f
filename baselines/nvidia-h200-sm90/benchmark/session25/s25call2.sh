#!/usr/bin/env bash
# Session 25, call 2:
#  1. examples/adopter's lesson trial rowsum/b256_vs_b1024 ten times (KERNELGATE_HISTORY=off),
#     bound 0.99 while measured: the ratio good / bad of each run, from which its bound is set
#     (docs/lessons.md's rule). (Call 1 measured b256 / b32 at 0.986-0.987: no lesson.)
#  2. The shipped suite with the binary of Kernel::define (d05a348: module options now pass through
#     Kernel::options; the suite defines nothing): whole-suite A/A through the paired path, twice
#     (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time --skip compile/), module identities kept to
#     compare with session 24's (b77).
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/example.xz > .gpu/bin/example \
  && chmod +x .gpu/bin/kernels .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w2; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
( cp -r examples/adopter $E && cd $E && rm -rf target .kernelgate \
  && git init -q -b main && git config user.email ci@example.com && git config user.name ci && git add -A && git commit -qm c1 \
  && for i in 1 2 3 4 5 6 7 8 9 10; do
       KERNELGATE_HISTORY=off timeout 60 $ROOT/.gpu/bin/example rowsum/b256_vs_b1024 > $W/lesson$i.log 2>&1
       echo "lesson$i: exit $? $(grep -hE '^ *(holds|broken|unclear|invalid) ' $W/lesson$i.log | head -1 | cut -c1-200)"
     done )
t lessons
for i in 1 2; do
  KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i timeout 250 .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
find $W -name samples.csv -delete
t end; tar cJf $OUT/w2.txz -C /tmp w2
