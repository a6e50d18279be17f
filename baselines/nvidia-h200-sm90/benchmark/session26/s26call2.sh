#!/usr/bin/env bash
# Session 26, call 2: cubins (gpu/softmax_sm90.cubin in examples/adopter, nvcc 13.0 -cubin
# -arch=sm_90 --use_fast_math of nvcc/softmax.cu, beside the same source's PTX for sm_80), and the
# final binaries of the shipped suite.
#  1. The shipped suite: whole-suite A/A through the paired path, once; transpose/ with ncu blessed
#     into a fresh folder, then gated through the nan wrapper of call 1 (the message of a trial
#     whose counters ncu printed as nan).
#  2. The example in a copy with a git history of its own: bless softmax/, gate twice; the cubin
#     cases' module_sha256 against `sha256sum` of the file.
#  3. Same-run A/B of softmax/ against c1 after c2 replaces the cubin with a build without
#     --use_fast_math (built here the same way, carried): the A side is c1's cubin from git. Twice.
#  4. The cubin replaced by one for sm_100 (same source): its trials must fail before loading,
#     naming both architectures; then a cubin cut short: the run must stop (exit 2) naming it.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && for b in kernels kernelgate example; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w2; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa1 timeout 200 .gpu/bin/kernels --skip compile/ > $W/aa1.log 2>&1
echo "aa1: exit $?; $(grep -h 'test result' $W/aa1.log | tail -1 | cut -c1-150)"
grep -h "timed trials:" $W/aa1.log | cut -c1-200 | head -2
grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa1.log | cut -c1-200 | head -8
echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa1.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
t aa1
sed -n "/^cat > \$W\/ncu-nan <<'SH'$/,/^SH$/p" baselines/nvidia-h200-sm90/benchmark/session26/s26call1.sh | sed '1d;$d' > $W/ncu-nan; chmod +x $W/ncu-nan
B=$W/base; mkdir -p $B
( export KERNELGATE_HISTORY=off KERNELGATE_BASELINES=$B KERNELGATE_NCU=1
  KERNELGATE_BLESS=1 timeout 100 .gpu/bin/kernels transpose/best > $W/bless.log 2>&1; echo "bless: exit $?"
  KERNELGATE_NCU_PATH=$W/ncu-nan timeout 100 .gpu/bin/kernels transpose/best > $W/nan.log 2>&1; echo "nan: exit $?"
  grep -hE "^test transpose.*\.\.\. " $W/nan.log | cut -c1-200
  grep -h "invalid (tool)" $W/nan.log | head -1 | cut -c1-400 )
t nan
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: softmax as PTX (sm_80) and as a cubin (sm_90)" && C1=$(git rev-parse HEAD)
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -hE "^test softmax.*\.\.\. " $W/$name.log | cut -c1-200 | head -6
  grep -hE "^kernelgate: (error|.*cannot)|is a cubin for|is not a" $W/$name.log | cut -c1-300 | head -4
  t $name; }
step bless env KERNELGATE_BLESS=1 $X softmax/
step gate-a $X softmax/
step gate-b $X softmax/
sha256sum gpu/softmax_sm90.cubin
python3 - target/kernelgate/runs/*.csv <<'PY'
import csv, sys
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        if r["trial"].startswith("softmax/") and r["statistic"] == "median":
            print(path.rsplit("/", 1)[-1][:24], r["trial"], r["kernel"], r["module_sha256"][:16], r["verdict"], r["value"], r["unit"])
PY
cp $ROOT/.gpu/xz/softmax_sm90_nofast.cubin gpu/softmax_sm90.cubin && git commit -qam "c2: the cubin built without --use_fast_math"
sha256sum gpu/softmax_sm90.cubin
step ab-a env KERNELGATE_AB=$C1 $X softmax/
step ab-b env KERNELGATE_AB=$C1 $X softmax/
grep -h "softmax" target/kernelgate/*-ab.md 2>/dev/null | head -8
cp $ROOT/.gpu/xz/softmax_sm100.cubin gpu/softmax_sm90.cubin
step sm100 $X softmax/
head -c 9000 $ROOT/.gpu/xz/softmax_sm90_nofast.cubin > gpu/softmax_sm90.cubin
step cut $X softmax/
tail -3 $W/cut.log | cut -c1-300
cp -r target/kernelgate/runs $W/runs 2>/dev/null; cp target/kernelgate/*-ab.* $W/ 2>/dev/null
find $W -name samples.csv -delete; find $W -name '*.ncu-rep' -delete
t end; tar cJf $OUT/w2.txz -C /tmp w2
