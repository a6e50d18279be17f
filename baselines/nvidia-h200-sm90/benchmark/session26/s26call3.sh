#!/usr/bin/env bash
# Session 26, call 3: fatbins (gpu/softmax_all.fatbin in examples/adopter: nvcc 13.0 -fatbin
# -no-compress, cubins for sm_80 and sm_90 and compute_90 PTX, of nvcc/softmax.cu), with the
# binaries of 9a7cfc9.
#  1. The example in a copy with a git history of its own: bless softmax/, gate twice; the header's
#     provenance (a committed cubin and fatbin: no "edited kernels"); the fatbin case's
#     module_sha256 against `sha256sum` of the file.
#  2. The fatbin replaced by one holding only an sm_100 cubin (carried): its trial must fail before
#     loading, naming what it holds.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w3; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: softmax as PTX, cubin and fatbin"
X=$ROOT/.gpu/bin/example
step() { local name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "recorded under" $W/$name.log | head -1
  grep -hE "^test softmax.*\.\.\. " $W/$name.log | cut -c1-200 | head -6
  grep -hE "holds |is not a" $W/$name.log | cut -c1-300 | head -3
  t $name; }
step bless env KERNELGATE_BLESS=1 $X softmax/
step gate-a $X softmax/
step gate-b $X softmax/
sha256sum gpu/softmax_all.fatbin gpu/softmax_sm90.cubin
python3 - target/kernelgate/runs/*.csv <<'PY'
import csv, sys
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    if not rows or "trial" not in rows[0]: continue
    for r in rows:
        if r["trial"].startswith("softmax/") and r.get("statistic") == "median":
            print(path.rsplit("/", 1)[-1][:24], r["trial"], r["kernel"], r["module_sha256"][:16], r["verdict"], r["value"])
PY
cp $ROOT/.gpu/xz/softmax_sm100only.fatbin gpu/softmax_all.fatbin
step sm100 $X softmax/
cp -r target/kernelgate/runs $W/runs 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w3.txz -C /tmp w3
