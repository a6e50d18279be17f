#!/usr/bin/env bash
# Session 33: the argument check before a GPU trial's first launch, on the GPU, twice. Runs the
# staged harness/tests/mistyped_params.rs (.gpu/xz/mistyped_params.xz: `cargo test --release -p
# kernelgate --test mistyped_params --no-run`, stripped, xz): a one-kernel project in a temporary
# folder whose case passes Param::F32 for an `int n`. Its compile trial must fail with the sentence
# naming the parameter and the fix, and, the GPU found, its GPU trial fail with the file and the same
# sentence before any launch (the test asserts both; exit 0 when they hold).
#
#   bash baselines/nvidia-h200-sm90/benchmark/session33/s33mistyped.sh    # from the project root
set -uo pipefail
exec > >(tee -a "$OUT/log.txt") 2>&1
mkdir -p .gpu/bin && xz -dc .gpu/xz/mistyped_params.xz > .gpu/bin/mistyped_params && chmod +x .gpu/bin/mistyped_params || exit 9
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader
for i in 1 2; do
  KERNELGATE_REQUIRE_GPU=1 .gpu/bin/mistyped_params --nocapture > /tmp/mistyped$i.log 2>&1
  echo "mistyped run $i: exit $?; $(grep -h 'test result' /tmp/mistyped$i.log | cut -c1-120)"
  grep -hE "^test (compile|fam)/|saxpy_param_3" /tmp/mistyped$i.log | cut -c1-300 | head -4
done
cp /tmp/mistyped1.log /tmp/mistyped2.log "$OUT/"
