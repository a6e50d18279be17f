#!/usr/bin/env bash
# Session 12, call 4 (final): everything merged (the diff's roofline, ceilings in the history,
# pct_of_vendor, the A-side guard, the splits). The whole suite twice, default options (kept runner:
# one HOME, the history on), + compare; the diff report of the two runs, HTML with its roofline.
set -uo pipefail
T0=$(date +%s); W=/tmp/w; rm -rf $W; mkdir -p $W/r1 $W/r2
pack() { tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
run() { local name=$1; shift; env "$@" > $W/$name.log 2>&1; local rc=$?; echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-150)"; }
for i in 1 2; do run r$i KERNELGATE_OUT_DIR=$W/r$i .gpu/bin/kernels; grep -h "where the time" $W/r$i.log | cut -c1-400; t r$i; pack; done
.gpu/bin/kernelgate compare $W/r1/runs/*-baseline $W/r2/runs/*-baseline > $W/cmp-r1-r2.txt 2>&1; echo "compare r1 r2: exit $?; $(tail -1 $W/cmp-r1-r2.txt)"
grep -hE " (regressed|improved|ambiguous|invalid) " $W/cmp-r1-r2.txt | cut -c1-200 | head -8
grep -h "^---- " $W/r1.log $W/r2.log | sort | uniq -c | wc -l
s1=$(basename $(ls $W/r1/runs/*-baseline) -baseline); s2=$(basename $(ls $W/r2/runs/*-baseline) -baseline)
.gpu/bin/kernelgate history import $W/r1/runs $W/r2/runs --dir $W/h > $W/import.txt 2>&1; echo "import: exit $?; $(tail -1 $W/import.txt)"
.gpu/bin/kernelgate diff ${s1%%-*} ${s2%%-*} --dir $W/h --html $W/r1-r2.html --markdown $W/r1-r2.md > $W/diff.txt 2>&1; echo "diff: exit $?; $(head -2 $W/diff.txt | cut -c1-200)"
grep -c "pct_of_vendor" $W/r2/runs/$s2.csv; grep -o "<svg[^>]*roofline[^>]*>" $W/r1-r2.html | head -2; grep -c "_ceiling" $W/r1-r2.md
pack; t end
