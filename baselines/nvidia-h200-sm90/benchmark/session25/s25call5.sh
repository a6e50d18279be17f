#!/usr/bin/env bash
# Session 25, call 5: the session's final binaries (5fcfee0): the case table's programs checked at
# start, a baseline of another driver named first, compile errors named with their definitions.
#  1. The shipped suite: whole-suite A/A through the paired path, once.
#  2. examples/adopter's final test binary in a copy with a git history of its own: bless, gate
#     twice (rowsum's three builds, CUB's sum from the host step, the special values).
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/example.xz > .gpu/bin/example \
  && chmod +x .gpu/bin/kernels .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w5; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa1 timeout 250 .gpu/bin/kernels --skip compile/ > $W/aa1.log 2>&1
echo "aa1: exit $?; $(grep -h 'test result' $W/aa1.log | tail -1 | cut -c1-150)"
grep -h "timed trials:" $W/aa1.log | cut -c1-200 | head -2
grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa1.log | cut -c1-200 | head -8
echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa1.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
t aa1
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate && mkdir -p target/host && cp $ROOT/examples/adopter/target/host/libcubsum.so target/host/ || exit 9
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1"
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED|broken|unclear)" $W/$name.log | cut -c1-300 | head -8
  t $name; }
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X
step gate-b $X
find $W -name samples.csv -delete
t end; tar cJf $OUT/w5.txz -C /tmp w5
