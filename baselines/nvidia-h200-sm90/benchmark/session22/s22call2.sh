#!/usr/bin/env bash
# Session 22, call 2: examples/adopter as a team's own repository, with a git history of its own
# (made here: c1 the example, c2 a comment in rowmax.cu, c3 axpby reading through a strided
# permutation (correct, uncoalesced), c4 a README). Its staged test binary (.gpu/xz/example.xz,
# built from examples/adopter with kernelgate as a path dependency) and the kernelgate program:
# bless at c1, gate at c1 twice, gate at c4, same-run A/B of c4 against c1, bisect c1..c4,
# ncu mode, and the history and diff of its runs, keyed by its own commits. The kernelgate program
# was unpacked into .gpu/keep/ by the call just before on the same warm machine (a call carries one
# binary with this tree).
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin
xz -dc .gpu/xz/example.xz > .gpu/bin/example || exit 9
cp .gpu/keep/kernelgate .gpu/bin/kernelgate || { echo "no .gpu/keep/kernelgate: not the warm machine"; exit 9; }
chmod +x .gpu/bin/*
T0=${EPOCHREALTIME%.*}; W=/tmp/w; E=/tmp/ex; rm -rf $W $E; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
pack() { find $W -name '*.ncu-rep' -delete; tar cJf $OUT/w.txz -C /tmp w 2>/dev/null; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
cp -r examples/adopter $E && cd $E || exit 9
rm -rf target .kernelgate
git init -q -b main && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm "c1: axpby and rowmax" && C1=$(git rev-parse HEAD)
sed -i '1a // Reviewed: one block per row is enough for 4096 columns.' gpu/rowmax.cu
git commit -qam "c2: a comment in rowmax.cu" && C2=$(git rev-parse HEAD)
python3 - <<'PY'
p = "gpu/axpby.cu"
s = open(p).read()
s = s.replace("""    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + b * y[i];""", """    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int i = (t % 32) * (n / 32) + t / 32;  // each warp's 32 elements n / 32 apart (n % 32 == 0)
    if (t < n) {
        out[i] = a * x[i] + b * y[i];""", 1)
open(p, "w").write(s)
PY
git commit -qam "c3: axpby's threads read n / 32 apart" && C3=$(git rev-parse HEAD)
echo "the example" > README && git add README && git commit -qm "c4: a README" && C4=$(git rev-parse HEAD)
git log --oneline | tee $W/log.txt
X=$ROOT/.gpu/bin/example; K=$ROOT/.gpu/bin/kernelgate
export KERNELGATE_REQUIRE_GPU=1
step() { local name=$1; shift; "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "recorded under\|timed trials:" $W/$name.log | cut -c1-200 | head -3
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/$name.log | cut -c1-200 | head -6
  t $name; }
git checkout -q $C1
step bless env KERNELGATE_BLESS=1 $X --skip compile/
ls -R baselines | head -20 > $W/baselines.txt
step gate-c1-a $X
step gate-c1-b $X
git checkout -q main
step gate-c4 $X
step ab-c4-vs-c1 env KERNELGATE_AB=$C1 $X --skip compile/
$K bisect $C1 $C4 --suite $X --out $W/bisect > $W/bisect.log 2>&1; echo "bisect: exit $?"
grep -h "first bad\|candidate\|skipped " $W/bisect.log | cut -c1-200 | head -10; t bisect
step ncu env KERNELGATE_NCU=1 $X axpby
grep -h "dram__bytes\|sectors_per_request\|global_ld" $W/ncu.log | head -4 | cut -c1-200
$K history runs > $W/history-runs.txt 2>&1; echo "history runs: exit $?"; cat $W/history-runs.txt | cut -c1-160
$K history show axpby/plain/16M > $W/history-show.txt 2>&1; echo "history show: exit $?"; head -12 $W/history-show.txt | cut -c1-160
$K diff $C1 $C4 --markdown $W/diff.md > $W/diff.txt 2>&1; echo "diff c1 c4: exit $?"; grep -m6 "axpby\|rowmax" $W/diff.md | cut -c1-200
$K history gate > $W/history-gate.txt 2>&1; echo "history gate: exit $?"; head -5 $W/history-gate.txt | cut -c1-200
cp -r baselines $W/ex-baselines; cp target/kernelgate/cases.json $W/ 2>/dev/null
t end; pack
