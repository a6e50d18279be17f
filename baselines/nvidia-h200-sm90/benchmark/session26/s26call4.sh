#!/usr/bin/env bash
# Session 26, call 4: kernelgate.toml [build] command (binaries of the commit that added it). In a
# copy of examples/adopter whose prebuilt modules are not committed (git-ignored; its
# scripts/build-modules makes them with the runner's nvcc), with [build] command =
# "scripts/build-modules":
#  c1: the modules as scripts/build-modules makes them; c2: the cubin built without --use_fast_math.
#  A/B of softmax/ against c1, twice: the A side's modules are built by the command in a checkout of
#  c1 (the second run reuses it); the working tree (c2) built before the run.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w4; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); $NVCC --version | tail -2
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
printf '\n[build]\ncommand = "scripts/build-modules"\n' >> kernelgate.toml
printf 'gpu/softmax.ptx\ngpu/softmax_sm90.cubin\ngpu/softmax_all.fatbin\ntarget/\n' > .gitignore
git init -q -b main && git config user.email ci@example.com && git config user.name ci
scripts/build-modules || exit 9
git add -A && git commit -qm "c1: modules built, not committed" && C1=$(git rev-parse HEAD)
git ls-files gpu | tr '\n' ' '; echo
sed -i 's|-cubin -arch=sm_90 --use_fast_math|-cubin -arch=sm_90|' scripts/build-modules
git commit -qam "c2: the cubin without --use_fast_math" && scripts/build-modules || exit 9
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; timeout 200 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "A/B: " $W/$name.log | cut -c1-250 | head -3
  grep -hE "^test softmax.*\.\.\. " $W/$name.log | cut -c1-230 | head -6
  t $name; }
step ab-a env KERNELGATE_AB=$C1 $X softmax/
step ab-b env KERNELGATE_AB=$C1 $X softmax/
ls target/kernelgate/revisions/; tail -2 target/kernelgate/revisions/*/kernelgate-build.log
sha256sum target/kernelgate/revisions/*/gpu/softmax_sm90.cubin gpu/softmax_sm90.cubin
printf '\n[build]\ncommand = "exit 7"\n' > /dev/null
sed -i 's|command = "scripts/build-modules"|command = "echo building; false"|' kernelgate.toml
step ab-fail env KERNELGATE_AB=HEAD~1 $X softmax/
grep -h "build command" $W/ab-fail.log | head -2 | cut -c1-300
cp -r target/kernelgate/runs $W/runs 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w4.txz -C /tmp w4
