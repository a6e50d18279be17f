#!/usr/bin/env bash
# Session 11, call 1: include paths on the H200's NVRTC; issue 19's last item: scripts/nightly on a
# fresh clone whose notes hold an earlier run, twice on one kept runner; A/A of the runs.
set -uo pipefail
T0=$(date +%s); P=$(pwd); W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar cJf $OUT/w.txz -C /tmp w; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt $OUT/gpu.txt
for f in .gpu-run/inc/*.cu; do .gpu/bin/kernelgate compile $f --arch sm_90 > $W/inc-$(basename $f .cu).txt 2>&1; echo "$f exit $?"; done
git config --global user.email ci@example.com; git config --global user.name ci
rm -rf /tmp/origin.git /tmp/c1 /tmp/c2
git clone -q --bare . /tmp/origin.git && git clone -q /tmp/origin.git /tmp/c1 && cp -r .gpu /tmp/c1/
cd /tmp/c1 && t "c1 at $(git rev-parse --short HEAD): suite, notes on"
KERNELGATE_NOTES=1 KERNELGATE_REQUIRE_GPU=1 .gpu/bin/kernels > $W/c1-suite.log 2>&1; echo "c1 suite exit $?"; grep "test result\|where the time" $W/c1-suite.log; pack
git push -q origin refs/notes/kernelgate && git commit -q --allow-empty -m "B: a later commit" && git push -q origin HEAD
t "origin: main at $(git rev-parse --short HEAD), notes $(git notes --ref kernelgate list | wc -l)"
git clone -q /tmp/origin.git /tmp/c2 && cp -r $P/.gpu /tmp/c2/ && cd /tmp/c2
t "c2 fresh clone: history $(ls .kernelgate 2>&1 | head -1)"
for i in 1 2; do
  scripts/nightly /tmp/n$i > $W/nightly$i.log 2>&1; echo "nightly $i exit $?"; t "nightly $i done"
  ls /tmp/n$i; grep -h "test result" /tmp/n$i/suite.log; cat /tmp/n$i/sync.txt /tmp/n$i/gate.txt | cut -c1-300 | head -30
  cp -r /tmp/n$i $W/; pack
done
ls target/kernelgate/runs/
runs=($(ls target/kernelgate/runs/ | grep -E '[0-9a-f]\.csv$'))
r1=$(ls /tmp/c1/target/kernelgate/runs/*.csv | grep -vE -- '-(metrics|raw)\.csv$' | head -1)
.gpu/bin/kernelgate compare $r1 target/kernelgate/runs/${runs[0]} > $W/cmp-c1-n1.txt 2>&1; echo "compare c1 n1: exit $?; $(tail -1 $W/cmp-c1-n1.txt)"
.gpu/bin/kernelgate compare target/kernelgate/runs/${runs[0]} target/kernelgate/runs/${runs[1]} > $W/cmp-n1-n2.txt 2>&1; echo "compare n1 n2: exit $?; $(tail -1 $W/cmp-n1-n2.txt)"
.gpu/bin/kernelgate history runs > $W/history-runs.txt 2>&1
cp -r /tmp/c1/target/kernelgate/runs $W/c1-runs; cp -r /tmp/c2/target/kernelgate/runs $W/c2-runs; pack
t end
