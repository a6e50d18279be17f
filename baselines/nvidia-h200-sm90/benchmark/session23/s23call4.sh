#!/usr/bin/env bash
# Session 23, call 4: examples/adopter's test binary (c1cd7a8) with its new narrow-type kernels
# (gpu/precision.cu: bf16 RMS norm with per-buffer tolerances, f16 SiLU, FP8 E4M3 quantization
# checked bit for bit), in a copy of the example with a git history of its own: bless, gate twice,
# then a planted fault (the quantization without saturation, __NV_NOSAT: values beyond 448 become
# NaN) gated once, which must fail its check with the E4M3 values and bits in the message.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w4; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: axpby, rowmax, precision" && C1=$(git rev-parse HEAD)
X=$ROOT/.gpu/bin/example
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test precision|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/$name.log | cut -c1-200 | head -8
  t $name; }
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X
step gate-b $X
sed -i 's/__NV_SATFINITE, __NV_E4M3/__NV_NOSAT, __NV_E4M3/' gpu/precision.cu
step planted-nosat $X precision
grep -h "output parameter" $W/planted-nosat.log | cut -c1-400 | head -4
git checkout -q gpu/precision.cu
cp -r baselines $W/ex-baselines; cp target/kernelgate/cases.json $W/ 2>/dev/null; cp -r target/kernelgate/runs $W/runs 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w4.txz -C /tmp w4
