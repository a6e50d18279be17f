#!/usr/bin/env bash
# Session 25, call 1: per-case definitions (Kernel::define), in examples/adopter's test binary, in a
# copy of the example with a git history of its own. gpu/rowsum.cu does not compile without
# -DBLOCK; its cases build it three times (-DBLOCK=32, 256, 1024):
#  1. bless, then gate twice: the three variants checked and timed, their module_sha256 printed
#     (three modules of one file);
#  2. the lesson trial rowsum/b256_vs_b32 ten times (KERNELGATE_HISTORY=off): the ratio good / bad
#     of each run, from which the lesson's bound is set (docs/lessons.md's rule);
#  3. same-run A/B of rowsum: at HEAD (both sides the same text and definitions: skipped as
#     identical), then against c1 after c2 unrolls the row loop by 4, twice: the A side is c1's
#     file compiled with each case's definitions (without them it would not compile).
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w1; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: rowsum.cu built with -DBLOCK=32/256/1024" && C1=$(git rev-parse HEAD)
X=$ROOT/.gpu/bin/example
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test rowsum|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED|broken|unclear)" $W/$name.log | cut -c1-240 | head -8
  t $name; }
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X
step gate-b $X
python3 - target/kernelgate/runs/*.csv <<'PY'
import csv, sys
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        if r["trial"].startswith("rowsum/") and r["statistic"] == "median":
            print(path.rsplit("/", 1)[-1][:24], r["trial"], r["kernel"], r["module_sha256"][:16], r["verdict"], r["value"], r["unit"])
PY
for i in 1 2 3 4 5 6 7 8 9 10; do
  KERNELGATE_HISTORY=off timeout 60 $X rowsum/b256_vs_b32 > $W/lesson$i.log 2>&1
  echo "lesson$i: exit $? $(grep -h 'rowsum/b256_vs_b32' $W/lesson$i.log | grep -v '^running' | head -2 | cut -c1-260 | tr '\n' ' ')"
done
t lessons
cat target/kernelgate/runs/lessons/*.csv 2>/dev/null | head -3
step ab-head env KERNELGATE_AB=HEAD $X rowsum/b
sed -i 's|    for (int c = threadIdx.x; c < cols; c += BLOCK) sum += row\[c\];|#pragma unroll 4\n    for (int c = threadIdx.x; c < cols; c += BLOCK) sum += row[c];|' gpu/rowsum.cu
grep -n "unroll 4" gpu/rowsum.cu
git commit -qam "c2: the row loop unrolled by 4"
step ab-a env KERNELGATE_AB=$C1 $X rowsum/b
step ab-b env KERNELGATE_AB=$C1 $X rowsum/b
grep -h "rowsum" target/kernelgate/*-ab.md 2>/dev/null | head -8
cp -r target/kernelgate/runs $W/runs 2>/dev/null; cp target/kernelgate/*-ab.* $W/ 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w1.txz -C /tmp w1
