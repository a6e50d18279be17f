#!/usr/bin/env bash
# Session 24, call 2: the final binaries of the session.
#  1. The shipped suite (no .ptx file; every module still compiled by NVRTC, through the dispatch
#     that now sends a .ptx file to ptxas/the driver instead): whole-suite A/A through the paired
#     path, twice (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time --skip compile/), as session 23
#     call 1 did.
#  2. examples/adopter's final test binary (argument sizes checked, ptxas wording): gate twice
#     against the bless of a fresh copy, softmax.ptx's cases among the others.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/example.xz > .gpu/bin/example \
  && chmod +x .gpu/bin/kernels .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w2; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
for i in 1 2; do
  KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1" 
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test softmax|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/$name.log | cut -c1-220 | head -8
  t $name; }
step ex-bless env KERNELGATE_BLESS=1 $X --skip compile/
step ex-gate-a $X
step ex-gate-b $X
find $W -name samples.csv -delete
t end; tar cJf $OUT/w2.txz -C /tmp w2
