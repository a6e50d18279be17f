#!/usr/bin/env bash
# Session 27, call 3: the session's final binaries (221cab2). The whole suite A/A through the
# paired path (KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time, compile trials skipped), twice,
# each time as a plan's two shards run one after the other and merged with the plan; then one A/B
# run of HEAD against HEAD with its 4 A/A controls, merged alone.
set -uo pipefail
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w3; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
KERNELGATE_OUT_DIR=$W/list .gpu/bin/kernels --list > /dev/null 2>&1
.gpu/bin/kernelgate history import baselines/nvidia-h200-sm90/runs --dir $W/hist 2>&1 | tail -1
KERNELGATE_OUT_DIR=$W/list .gpu/bin/kernelgate plan --shards 2 --gpu nvidia-h200-sm90 --dir $W/hist --out $W/plan.json > $W/matrix.json
P1=$(python3 -c "import json; print(json.load(open('$W/matrix.json'))['include'][0]['partition'])")
P2=$(python3 -c "import json; print(json.load(open('$W/matrix.json'))['include'][1]['partition'])")
for i in 1 2; do
  for k in 1 2; do
    P=$([ $k = 1 ] && echo "$P1" || echo "$P2")
    KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/s$i-$k timeout 170 .gpu/bin/kernels --skip compile/ --partition "$P" > $W/s$i-$k.log 2>&1
    echo "s$i-$k: exit $?; $(grep -h 'test result' $W/s$i-$k.log | tail -1 | cut -c1-150)"
  done
  .gpu/bin/kernelgate merge --plan $W/plan.json --json $W/merged$i.json --markdown $W/merged$i.md $W/s$i-1 $W/s$i-2; echo "merge $i: exit $?"
  sed -n 3,4p $W/merged$i.md
  python3 -c "
import json; d=json.load(open('$W/merged$i.json'))
v=[o['nvidia-h200-sm90'] for o in d['trials'].values()]
print('not unchanged:', [(t,o['nvidia-h200-sm90']['verdict'],round(o['nvidia-h200-sm90']['delta_pct'] or 0,2)) for t,o in d['trials'].items() if o['nvidia-h200-sm90']['verdict'] not in ('unchanged','holds')])
print('max |delta|: %.2f %%' % max(abs(o['delta_pct']) for o in v if o.get('delta_pct') is not None))"
  t rep$i
done
KERNELGATE_AB=HEAD KERNELGATE_OUT_DIR=$W/c1 timeout 60 .gpu/bin/kernels --skip compile/ > $W/c1.log 2>&1; echo "controls run: exit $?"
grep -h "A/A controls:" $W/c1.log | cut -c1-200
.gpu/bin/kernelgate merge --markdown $W/c1.md $W/c1; echo "merge controls run: exit $?"; sed -n 3,4p $W/c1.md
t end
rm -rf $W/*/runs/*-baseline $W/hist; find $W -name samples.csv -delete
tar cJf $OUT/w3.txz -C /tmp w3
