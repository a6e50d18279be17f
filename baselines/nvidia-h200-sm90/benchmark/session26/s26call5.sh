#!/usr/bin/env bash
# Session 26, call 5: the session's final binaries (0240a2a; the A/B path gained the build command
# and the verdict step the tool's case since the last whole-suite A/A).
#  1. The shipped suite: whole-suite A/A through the paired path, twice.
#  2. examples/adopter in a copy with a git history of its own: bless softmax/, gate once (PTX,
#     cubin and fatbin cases).
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && for b in kernels example; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w5; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i timeout 240 .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
cp -r examples/adopter $E && cd $E && rm -rf target .kernelgate || exit 9
git init -q -b main && git config user.email ci@example.com && git config user.name ci && git add -A && git commit -qm c1
for s in bless gate; do
  [ $s = bless ] && export KERNELGATE_BLESS=1 || unset KERNELGATE_BLESS
  timeout 150 $ROOT/.gpu/bin/example softmax/ > $W/$s.log 2>&1
  echo "$s: exit $?; $(grep -h 'test result' $W/$s.log | tail -1 | cut -c1-120)"
  grep -hE "^test softmax.*\.\.\. " $W/$s.log | cut -c1-200
done
t end
rm -rf $W/aa*/runs/*-baseline; find $W -name samples.csv -delete
tar cJf $OUT/w5.txz -C /tmp w5
