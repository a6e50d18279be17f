#!/usr/bin/env bash
# Session 25, call 4: special input values (Init::Specials). examples/adopter's final test binary
# in a copy with a git history of its own: rowmax/b128_specials (rows of 4096 floats with one
# NaN, infinity, -0, largest float or subnormal in a thousand, the maximum checked exactly against
# f32::max on the CPU) twice; then the whole example: bless, gate twice.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w4; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate && mkdir -p target/host && cp $ROOT/examples/adopter/target/host/libcubsum.so target/host/ || exit 9
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1"
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test rowmax|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED|broken|unclear)" $W/$name.log | cut -c1-300 | head -8
  t $name; }
step specials-a env KERNELGATE_HISTORY=off $X rowmax/b128_specials
step specials-b env KERNELGATE_HISTORY=off $X rowmax/b128_specials
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X
step gate-b $X
cp -r target/kernelgate/runs $W/runs 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w4.txz -C /tmp w4
