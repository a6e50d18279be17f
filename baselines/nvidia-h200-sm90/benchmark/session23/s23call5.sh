#!/usr/bin/env bash
# Session 23, call 5: examples/adopter's test binary at 4c7007d, whose kernelgate.toml builds
# gpu/precision.cu with --use_fast_math ([nvrtc.files."precision.cu"]), in a copy of the example
# with a git history of its own: bless, gate twice (the run header names the options), then the
# option removed from kernelgate.toml (the text of precision.cu unchanged) and gated once: the
# modules of precision.cu get other identities (module_sha256 of the run CSVs, printed) and are
# timed against the fast-math baseline.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w5; E=/tmp/ex5; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: the example, precision.cu with fast math" && C1=$(git rev-parse HEAD)
X=$ROOT/.gpu/bin/example
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:\|NVRTC options" $W/$name.log | cut -c1-200 | head -3
  grep -hE "^test precision|\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/$name.log | cut -c1-200 | head -8
  t $name; }
modules() { python3 - "$@" <<'PY'
import csv, glob, sys
for path in sorted(glob.glob("target/kernelgate/runs/*-baseline/baseline.csv"))[-1:]:
    for row in csv.DictReader(open(path)):
        if row["trial"].startswith("precision/"):
            print(f'  {row["trial"]:32} module {row["module_sha256"][:16]}  median {float(row["median"])*1e6:.2f} us')
PY
}
step bless env KERNELGATE_BLESS=1 $X --skip compile/
modules
step gate-a $X --skip compile/
step gate-b $X --skip compile/
modules
python3 - <<'PY'
p = "kernelgate.toml"
s = open(p).read()
s = s[: s.index("[nvrtc.files")]
open(p, "w").write(s)
PY
git commit -qam "c2: precision.cu without fast math"
step gate-plain $X --skip compile/
modules
cp -r target/kernelgate/runs $W/runs 2>/dev/null; find $W -name samples.csv -delete
t end; tar cJf $OUT/w5.txz -C /tmp w5
