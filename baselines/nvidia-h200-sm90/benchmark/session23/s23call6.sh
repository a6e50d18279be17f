#!/usr/bin/env bash
# Session 23, call 6: a new user's project (a helper, from the docs alone, on the build machine
# without a GPU): six bf16 kernels of karpathy/llm.c dev/cuda (gelu_forward 1-2, gelu_backward 1-2,
# residual_forward 1-2; built upstream with --use_fast_math, which its kernelgate.toml names), its
# staged test binary (kernelgate b08db27) in its own git history: bless, then gate twice.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/trial.xz > .gpu/bin/trial && chmod +x .gpu/bin/trial || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w6; rm -rf $W /tmp/proj; mkdir -p $W
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
tar xzf .gpu/xz/proj.tgz -C /tmp && cd /tmp/proj || exit 9
git log --oneline | head -3
X=$ROOT/.gpu/bin/trial
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:\|NVRTC options" $W/$name.log | cut -c1-200 | head -3
  grep -hE "^test [a-z_]+/|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/$name.log | grep -v compile/ | cut -c1-200 | head -8
  grep -h "output parameter" $W/$name.log | cut -c1-300 | head -3
  echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s]"; }
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X --skip compile/
step gate-b $X --skip compile/
cp -r target/kernelgate/runs $W/runs 2>/dev/null; find $W -name samples.csv -delete
tar cJf $OUT/w6.txz -C /tmp w6
