#!/usr/bin/env bash
# Session 22, call 1a: the last suite binary before the workspace split (ef87d42, .gpu/old/,
# stripped) in that commit's kernels/ tree, the whole suite once, without a baseline. Call 1b runs
# the split's binary on the same warm machine right after (the device call cannot carry both
# binaries with this tree); the two records are compared with `kernelgate compare` on the build
# machine.
set -uo pipefail
mkdir -p .gpu/oldbin && xz -dc .gpu/old/kernels.xz > .gpu/oldbin/kernels && chmod +x .gpu/oldbin/kernels || exit 9
W=/tmp/w; rm -rf $W /tmp/oldtree /tmp/none; mkdir -p $W /tmp/oldtree /tmp/none
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu-a.txt
tar xf .gpu/old/tree.tar -C /tmp/oldtree || exit 9
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
ROOT=$PWD; T0=${EPOCHREALTIME%.*}
( cd /tmp/oldtree && KERNELGATE_BASELINES=/tmp/none KERNELGATE_OUT_DIR=$W/old $ROOT/.gpu/oldbin/kernels --skip compile/ > $W/old.log 2>&1; echo "old: exit $?" )
grep -h "test result\|timed trials:" $W/old.log | tail -2 | cut -c1-150
echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s]"
tar cJf $OUT/w.txz -C /tmp w
