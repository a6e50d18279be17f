#!/usr/bin/env bash
# Session 30, call 1: the binaries of b24550b (the launch passes the f16/bf16/f64 scalar kinds, no
# shipped case uses them).
#  1. Whole-suite A/A through the paired path, twice (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time,
#     compile trials skipped).
#  2. candle's bf16 unary and reduce kernels (a new user's project: nvcc 13.0 PTX, unmodified
#     candle-kernels sources; carried as .gpu/candle, its test binary as .gpu/xz/candle.xz) in a
#     copy with a git history of its own: bless, then gate twice.
#  3. Whether the device's copy holds the commits the pool calls A/B against (git cat-file).
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && for b in kernels kernelgate candle; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w1; E=/tmp/candle; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
git log --oneline -2 | cut -c1-80; for c in d4ff0db b24550b; do echo "$c: $(git cat-file -t $c 2>&1)"; done
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i timeout 240 .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
cp -r .gpu/candle $E && cd $E && rm -rf target .kernelgate || exit 9
git init -q -b main && git config user.email ci@example.com && git config user.name ci && git add -A && git commit -qm c1
for s in bless gate1 gate2; do
  [ $s = bless ] && export KERNELGATE_BLESS=1 || unset KERNELGATE_BLESS
  timeout 150 $ROOT/.gpu/bin/candle > $W/candle-$s.log 2>&1
  echo "candle $s: exit $?; $(grep -h 'test result' $W/candle-$s.log | tail -1 | cut -c1-120)"
  grep -h "recorded under\|^kernelgate: .*NVRTC" $W/candle-$s.log | head -2 | cut -c1-200
  grep -hE "^test (unary|reduce).*\.\.\. " $W/candle-$s.log | cut -c1-220
  t candle-$s
done
cp -r target/kernelgate/runs $W/candle-runs 2>/dev/null; cp -r baselines $W/candle-baselines
cd $ROOT
rm -rf $W/aa*/runs/*-baseline; find $W -name samples.csv -delete
t end; tar cJf $OUT/w1.txz -C /tmp w1
