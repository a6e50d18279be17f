#!/usr/bin/env bash
# Session 24, call 3: same-run A/B compiles each side with its own kernelgate.toml options.
# In a copy of examples/adopter with a git history of its own: c1 as committed (precision.cu built
# with --use_fast_math, [nvrtc.files."precision.cu"]), c2 removes that table. A/B of c2 (the tree)
# against c1, twice, on the precision family: the A side must be compiled with fast math (another
# module than B), and the cases timed, not skipped as identical.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/example.xz > .gpu/bin/example && chmod +x .gpu/bin/example || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w3; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: precision.cu with fast math" && C1=$(git rev-parse HEAD)
python3 - <<'PY'
text = open("kernelgate.toml").read()
at = text.index("# precision.cu is built with fast math")
open("kernelgate.toml", "w").write(text[:at].rstrip() + "\n")
PY
git commit -qam "c2: precision.cu without fast math"
cat kernelgate.toml
X=$ROOT/.gpu/bin/example
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "timed trials:" $W/$name.log | cut -c1-200 | head -2
  grep -hE "^test precision|^kernelgate: precision.*(A = |not timed)|differ" $W/$name.log | cut -c1-260 | head -10
  t $name; }
step ab-a env KERNELGATE_AB=$C1 $X precision
step ab-b env KERNELGATE_AB=$C1 $X precision
cp target/kernelgate/runs/*-ab.md $W/ 2>/dev/null
find $W -name samples.csv -delete
t end; tar cJf $OUT/w3.txz -C /tmp w3
