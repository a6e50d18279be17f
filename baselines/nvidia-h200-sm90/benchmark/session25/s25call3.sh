#!/usr/bin/env bash
# Session 25, call 3: host steps (Step::Host).
#  1. examples/adopter's final test binary in a copy with a git history of its own, with the host
#     library scripts/build-host made here (nvcc 13.0.88 from PyPI's wheels: target/host/
#     libcubsum.so, cub::DeviceReduce::Sum, SASS for sm_80 and sm_90): first `sum/` as the runner
#     is (the CUDA runtime wherever the loader finds it), then with /usr/local/cuda's lib64 on
#     LD_LIBRARY_PATH if it was not found; bless, gate twice (the whole example: sum/cub/16M is the
#     vendor reference of sum/atomic/16M, shown as % of CUB); `sum/` once under ncu
#     (KERNELGATE_NCU=1: CUB's own kernels inside the host step's NVTX range); with the library
#     named somewhere it is not (ADOPTER_CUB_LIB), the case ignored with the reason.
#  2. The shipped suite with the binary of this change (the program's enqueue gained the host
#     step's arm): whole-suite A/A through the paired path, twice.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/example.xz > .gpu/bin/example \
  && chmod +x .gpu/bin/kernels .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w3; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate && mkdir -p target/host && cp $ROOT/examples/adopter/target/host/libcubsum.so target/host/ || exit 9
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: sum/atomic and CUB's sum from a host step"
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test sum|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED|broken|unclear)" $W/$name.log | cut -c1-300 | head -8
  t $name; }
step as-is env KERNELGATE_HISTORY=off $X sum/
if grep -q "cannot load" $W/as-is.log; then export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; fi
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X
step gate-b $X
grep -hE "sum/|% of|CUB" $W/gate-b.log | grep -v "^test " | cut -c1-200 | head -8
step ncu env KERNELGATE_NCU=1 KERNELGATE_HISTORY=off $X sum/
grep -hE "ncu|profiled|DeviceReduce" $W/ncu.log | cut -c1-300 | head -8
step missing env ADOPTER_CUB_LIB=/nonexistent/libcubsum.so KERNELGATE_HISTORY=off $X sum/cub
cp -r target/kernelgate/runs $W/runs 2>/dev/null
cd $ROOT
for i in 1 2; do
  KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i timeout 250 .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
find $W -name samples.csv -delete
t end; tar cJf $OUT/w3.txz -C /tmp w3
