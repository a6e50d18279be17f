#!/usr/bin/env bash
# Session 11, call 3 (final): everything merged. Bless the new CUB cases with ncu; the whole suite
# twice (kept runner) + compare; the planted guard cases twice; the four lesson trials 10 times for
# their bounds; A/B of a comment-only change (same SASS); a whole-suite A/A.
set -uo pipefail
T0=$(date +%s); P=$(pwd); W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
B="baselines/nvidia-h200-sm90"
# 1. bless the CUB cases (with counters)
run bless KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_OUT_DIR=$W/bless .gpu/bin/kernels --skip compile/ reduction/cub histogram/cub
mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/; grep -h "cub" $W/bless.log | grep -v "^test" | cut -c1-200 | head -8; pack; t bless
# 2. the whole suite twice, default options
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i .gpu/bin/kernels; grep -h "ceiling\|where the time" $W/r$i.log | cut -c1-300 | head -12; t r$i; pack; done
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline)); .gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -E " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
grep -h "FAILED\|^---- " $W/r1.log $W/r2.log | head -10
# 3. planted guard cases, twice
for i in 1 2; do run planted$i KERNELGATE_PLANTED=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/p$i .gpu/bin/kernels planted/too_fast planted/wrong_later; grep -h "too_fast\|wrong_later" $W/planted$i.log | cut -c1-400 | head -6; done; pack; t planted
# 4. lesson trials x10
mkdir -p $W/lessons; for i in $(seq 10); do KERNELGATE_OUT_DIR=$W/lessons KERNELGATE_HISTORY=off .gpu/bin/kernels _vs_ > $W/lessons/run-$i.log 2>&1; echo -n "L$i:$? "; done; echo
.gpu/bin/kernelgate lessons $W/lessons/runs > $W/lessons.txt 2>&1; cat $W/lessons.txt | cut -c1-220; pack; t lessons
# 5. A/B of a comment-only change: same SASS, not timed
rm -rf /tmp/ab && git clone -q . /tmp/ab && cd /tmp/ab && git config user.email ci@example.com && git config user.name ci && \
  (echo "// a comment that moves every line"; cat kernels/coalescing.cu) > k && mv k kernels/coalescing.cu && git commit -qam comment && cp -r $P/.gpu . && \
  KERNELGATE_AB=HEAD KERNELGATE_HISTORY=off .gpu/bin/kernels coalescing/ > $W/ab-comment.log 2>&1; echo "ab-comment: exit $?; $(grep -c 'same SASS' $W/ab-comment.log) same-SASS lines"; grep -h "same SASS\|test result" $W/ab-comment.log | head -3 | cut -c1-300
cd $P; pack; t ab
# 6. whole-suite A/A on the timing path
run aa KERNELGATE_AB=4e767ac KERNELGATE_AB_IDENTICAL=time KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/aa .gpu/bin/kernels --skip compile/
grep -hE "regressed|improved|ambiguous" $W/aa.log | grep -v "^test" | cut -c1-200 | head -6
rm -f $W/*/runs/*.ncu-rep; pack; t end
