#!/bin/bash
# Not yet run (a follow-up of the shared-memory fill; no device time was left for it). From the project root on a
# GPU runner, after scripts/stage:  OUT=/tmp/out bash scripts/probe/memcheck-fill.sh <commit>
# Isolated planted + launch; then memcheck and synccheck children alternating
# planted/uninit_shared with one trial of other families: after which trial does the shared-memory
# fill stop reaching the next kernel under the tool (harness/shared_poison.rs)?
set -u
nvidia-smi --query-gpu=uuid,serial,name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} KERNELGATE_REQUIRE_GPU=1 KERNELGATE_COMMIT=$1 KERNELGATE_HISTORY=off KERNELGATE_PLANTED=1
K=.gpu/bin/kernels
OTHERS="--skip compile/ --skip coalescing --skip divergence --skip histogram --skip layout --skip matmul --skip occupancy --skip readonly --skip reduction --skip transfers --skip transpose --skip vectorization"
( time KERNELGATE_OUT_DIR=$OUT/b KERNELGATE_ISOLATE=1 KERNELGATE_KERNEL_TIMEOUT=10 timeout 60 $K $OTHERS ) > $OUT/b.log 2>&1; echo "== b exit $?"
grep "isolated child:\|^test \|the same run\|did not reach\|^real" $OUT/b.log | cut -c1-250
U=planted/uninit_shared/3996
LIST="$U
coalescing/copy/67108864
$U
histogram/privatized/268435456_uniform
$U
matmul/tiled16/4000x4000x1000
$U
matmul/cublas/4000x4000x1000
$U
transpose/shared_padded/8192x8192
$U"
for t in memcheck synccheck; do
KERNELGATE_SANITIZE=$t KERNELGATE_SANITIZE_TRIALS="$LIST" timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool $t --print-limit 100 --show-backtrace device $K > $OUT/$t.log 2>&1; echo "== $t exit $?"
grep "sanitize: end\|did not reach\|ERROR SUMMARY" $OUT/$t.log | cut -c1-200
done
cd $OUT && rm -rf b/runs/*-baseline && tar czf c6.tgz b *.log gpu.txt && rm -rf b
