#!/usr/bin/env bash
# Session 12, call 1: the checks' downloads through pinned staging memory (146236e). The whole suite
# twice with the new binary (kept runner: one HOME) + compare; once with the previous binary
# (0d6adbe, .gpu-run/kernels-0d6adbe.xz) on the same GPU + compare; bless the CUB cases with ncu and
# run them 10 times for their calibration; the planted guard cases twice each.
set -uo pipefail
T0=$(date +%s); P=$(pwd); W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
B="baselines/nvidia-h200-sm90"
xz -dc .gpu-run/kernels-0d6adbe.xz > /tmp/kernels-old && chmod +x /tmp/kernels-old
# 1. the whole suite twice with the new binary, then once with the old one
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i .gpu/bin/kernels; grep -h "peaks\|where the time" $W/r$i.log | cut -c1-400 | head -4; t r$i; pack; done
run o1 KERNELGATE_OUT_DIR=$W/o1 /tmp/kernels-old; grep -h "where the time" $W/o1.log | cut -c1-400; t o1
b=($(ls -d $W/r1/runs/*-baseline $W/r2/runs/*-baseline $W/o1/runs/*-baseline))
.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
.gpu/bin/kernelgate compare ${b[2]} ${b[1]} > $W/cmp-o1-r2.txt 2>&1; echo "compare o1 r2: exit $?; $(tail -1 $W/cmp-o1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt $W/cmp-o1-r2.txt | cut -c1-200 | head -8
grep -h "FAILED\|^---- " $W/r1.log $W/r2.log | head -10; pack
# 2. bless the CUB cases with counters, then ten runs of them for calibration
run bless KERNELGATE_NCU=1 KERNELGATE_BLESS=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/bless .gpu/bin/kernels --skip compile/ /cub/
mkdir -p $W/blessed && cp $B/{baseline.csv,samples.csv,run_to_run.csv,manifest.json} $W/blessed/; grep -h "cub.*->\|blessed\|bless" $W/bless.log | cut -c1-200 | head -8; pack; t bless
for i in $(seq 10); do KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/cub .gpu/bin/kernels --skip compile/ /cub/ > $W/cub-$i.log 2>&1; echo -n "C$i:$? "; done; echo
grep -E "^(reduction|histogram)/cub" $W/cub-10.log | cut -c1-175; pack; t cub
# 3. the planted guard cases, twice each
for i in 1 2; do
  run fast$i KERNELGATE_PLANTED=1 KERNELGATE_HISTORY=off KERNELGATE_FAIL_ON=regressed,invalid KERNELGATE_OUT_DIR=$W/p$i .gpu/bin/kernels --exact planted/too_fast/16777216
  grep -h "too_fast" $W/fast$i.log | grep -v "^test " | cut -c1-700 | head -3
  run later$i KERNELGATE_PLANTED=1 KERNELGATE_HISTORY=off KERNELGATE_OUT_DIR=$W/p$i .gpu/bin/kernels --exact planted/wrong_later/4096
  awk '/^---- /,/^$/' $W/later$i.log | cut -c1-600 | head -4
done
rm -f $W/*/runs/*.ncu-rep; pack; t end
