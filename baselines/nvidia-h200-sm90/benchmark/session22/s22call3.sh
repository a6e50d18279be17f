#!/usr/bin/env bash
# Session 22, call 3: the project a new user made from the docs alone (a helper, on the build
# machine, no GPU): four softmax kernels of karpathy/llm.c (dev/cuda/softmax_forward.cu at
# f1e2ace) in a cargo project of its own with kernelgate as a path dependency. Its staged test
# binary and its tree (.gpu/trial/) in a git repository made here: bless, then gate twice.
set -uo pipefail
ROOT=$PWD; W=/tmp/w; P=/tmp/myproj; rm -rf $W $P; mkdir -p $W $P
mkdir -p /tmp/bin && xz -dc .gpu/trial/kernels.xz > /tmp/bin/kernels && chmod +x /tmp/bin/kernels || exit 9
tar xf .gpu/trial/myproj.tar -C $P || exit 9
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cd $P && git init -q -b main && git config user.email u@example.com && git config user.name u && git add -A && git commit -qm "the user's project"
export KERNELGATE_REQUIRE_GPU=1
T0=${EPOCHREALTIME%.*}
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120) [t=$(( ${EPOCHREALTIME%.*} - T0 )) s]"
  grep -h "recorded under\|timed trials:" $W/$name.log | cut -c1-200 | head -3
  grep -hE "^test softmax" $W/$name.log | cut -c1-160; }
step bless env KERNELGATE_BLESS=1 /tmp/bin/kernels --skip compile/
step gate1 /tmp/bin/kernels
step gate2 /tmp/bin/kernels
tar cJf $OUT/w.txz -C /tmp w
