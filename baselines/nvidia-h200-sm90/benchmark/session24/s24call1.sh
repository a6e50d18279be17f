#!/usr/bin/env bash
# Session 24, call 1: examples/adopter's test binary with a prebuilt PTX module (gpu/softmax.ptx,
# built by nvcc 13.0.88 from nvcc/softmax.cu, .target sm_80, loaded as it is), in a copy of the
# example with a git history of its own:
#  1. bless, then gate twice: the softmax cases checked (bf16 against f64, 1 ulp) and timed beside
#     the NVRTC-compiled ones;
#  2. the run CSV's module_sha256 of the softmax cases against sha256 of nothing else: printed with
#     the PTX file's own sha256sum, for the record;
#  3. same-run A/B of a committed rebuild (c2: the warp variant with ITEMS=64, more registers) against
#     c1, twice: the A side's PTX is c1's file, read from git;
#  4. faults, gated once each, which must be named: the PTX with `.version 9.9` (an ISA newer than
#     the driver's CUDA 13.0: the driver refuses it), `.target sm_100` (refused before loading);
#     the case names the file and both versions or architectures.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w1; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: axpby, rowmax, precision, softmax.ptx" && C1=$(git rev-parse HEAD)
X=$ROOT/.gpu/bin/example
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test softmax|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/$name.log | cut -c1-220 | head -8
  t $name; }
step bless env KERNELGATE_BLESS=1 $X --skip compile/
step gate-a $X
step gate-b $X
sha256sum gpu/softmax.ptx
python3 - target/kernelgate/runs/*.csv <<'PY'
import csv, sys
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        if r["trial"].startswith("softmax/") and r["statistic"] == "median":
            print(path.rsplit("/", 1)[-1][:24], r["trial"], r["module_sha256"][:16], r["verdict"], r["value"], r["unit"])
PY
cp $ROOT/.gpu/s24/softmax_items64.ptx gpu/softmax.ptx && git commit -qam "c2: softmax_warp_1024 with ITEMS=64"
step ab-a env KERNELGATE_AB=$C1 $X softmax
step ab-b env KERNELGATE_AB=$C1 $X softmax
grep -h "softmax" target/kernelgate/*-ab.md 2>/dev/null | head -6
git checkout -q $C1 -- gpu/softmax.ptx
cp $ROOT/.gpu/s24/softmax_isa99.ptx gpu/softmax.ptx
step fault-isa $X softmax/warp
grep -hE "PTX|driver" $W/fault-isa.log | grep -v "^test " | cut -c1-400 | head -4
cp $ROOT/.gpu/s24/softmax_sm100.ptx gpu/softmax.ptx
step fault-target $X softmax/warp
grep -hE "sm_100" $W/fault-target.log | cut -c1-400 | head -4
git checkout -q $C1 -- gpu/softmax.ptx
cp -r baselines $W/ex-baselines; cp -r target/kernelgate/runs $W/runs 2>/dev/null; cp target/kernelgate/*-ab.* $W/ 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w1.txz -C /tmp w1
