#!/usr/bin/env bash
# Session 22, call 4: examples/adopter's staged binary (.gpu/xz/example.xz) in a git repository
# made here, in the modes call 2 did not try, each twice: compute-sanitizer memcheck and racecheck
# (KERNELGATE_SANITIZE), crash isolation (KERNELGATE_ISOLATE=1), a JUnit report (KERNELGATE_JUNIT).
set -uo pipefail
ROOT=$PWD; W=/tmp/w; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
mkdir -p /tmp/bin && xz -dc .gpu/xz/example.xz > /tmp/bin/example && chmod +x /tmp/bin/example || exit 9
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E && rm -rf target .kernelgate || exit 9
git init -q -b main && git config user.email ci@example.com && git config user.name ci && git add -A && git commit -qm c1
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
T0=${EPOCHREALTIME%.*}
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120) [t=$(( ${EPOCHREALTIME%.*} - T0 )) s]"
  grep -hiE "sanitizer|isolated child|junit|hazard|error summary" $W/$name.log | cut -c1-200 | head -4; }
step bless env KERNELGATE_BLESS=1 /tmp/bin/example --skip compile/
for i in 1 2; do
  step memcheck$i env KERNELGATE_SANITIZE=memcheck /tmp/bin/example --skip compile/
  step racecheck$i env KERNELGATE_SANITIZE=racecheck /tmp/bin/example --skip compile/
  step isolate$i env KERNELGATE_ISOLATE=1 /tmp/bin/example
  step junit$i env KERNELGATE_JUNIT=$W/junit$i.xml /tmp/bin/example
  grep -o '<testsuite [^>]*>' $W/junit$i.xml | cut -c1-200
done
tar cJf $OUT/w.txz -C /tmp w
