#!/usr/bin/env bash
# Session 11, call 2: issue 19's last item. Notes of a run of commit A (4e767ac's staged suite) in
# origin; a fresh clone at B (this build) runs scripts/nightly twice (a kept runner): the history is
# rebuilt from the notes, the gate decides, the diff report A -> B is written. Also B's two_pass fix.
set -uo pipefail
T0=$(date +%s); P=$(pwd); W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar cJf $OUT/w.txz -C /tmp w; }
t() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt $OUT/gpu.txt
git config --global user.email ci@example.com; git config --global user.name ci
rm -rf /tmp/origin.git /tmp/c1 /tmp/c2 /tmp/n1 /tmp/n2
git clone -q --bare . /tmp/origin.git && git clone -q /tmp/origin.git /tmp/c1
mkdir -p /tmp/c1/.gpu/bin && xz -dc .gpu-run/a-kernels-4e767ac.xz > /tmp/c1/.gpu/bin/kernels && chmod +x /tmp/c1/.gpu/bin/kernels
cd /tmp/c1 && t "c1 at $(git rev-parse --short HEAD): A's suite (4e767ac), notes on"
KERNELGATE_NOTES=1 KERNELGATE_REQUIRE_GPU=1 .gpu/bin/kernels > $W/c1-suite.log 2>&1; echo "c1 suite exit $?"; grep "test result\|where the time" $W/c1-suite.log
git push -q origin refs/notes/kernelgate; t "origin: main at $(git -C /tmp/origin.git rev-parse --short HEAD), notes on $(git notes --ref kernelgate list | cut -c42-48)"; pack
git clone -q /tmp/origin.git /tmp/c2 && cp -r $P/.gpu /tmp/c2/ && cd /tmp/c2
t "c2 fresh clone at $(git rev-parse --short HEAD): $(ls -d .kernelgate 2>&1 | head -1)"
for i in 1 2; do
  scripts/nightly /tmp/n$i > $W/nightly$i.log 2>&1; echo "nightly $i exit $?"; t "nightly $i done"
  ls /tmp/n$i | tr '\n' ' '; echo; grep -h "test result" /tmp/n$i/suite.log; cat /tmp/n$i/sync.txt /tmp/n$i/gate.txt | cut -c1-300 | head -20
  grep -h "nightly:" $W/nightly$i.log | cut -c1-300
  cp -r /tmp/n$i $W/; pack
done
.gpu/bin/kernelgate history runs > $W/history-runs.txt 2>&1; cat $W/history-runs.txt | cut -c1-200 | head
cp -r /tmp/c1/target/kernelgate/runs $W/c1-runs; cp -r /tmp/c2/target/kernelgate/runs $W/c2-runs; rm -f $W/*/*.ncu-rep
cd $W/c2-runs && b=($(ls -d *-baseline)); $P/.gpu/bin/kernelgate compare ${b[0]} ${b[1]} > $W/cmp-n1-n2.txt 2>&1; echo "compare n1 n2: exit $?; $(tail -1 $W/cmp-n1-n2.txt)"
pack; t end
