#!/usr/bin/env bash
# Session 34: issue 38's last checks on one GPU, printing into $OUT/log.txt as it goes.
# Staged binaries of the commit under test: .gpu/xz/{kernels,kernelgate}.xz (scripts/stage, then xz).
#  1. Module identity across checkouts: blocksum/ (templates, CUB: internal names and CCCL's
#     headers in the PTX's .file lines) and coalescing/ run from this tree and from a copy at another
#     folder depth; the run CSVs' module_sha256 must be equal trial by trial. Each folder twice.
#  2. Whole-suite A/A through the paired path, twice (session32/s32verify.sh's step 1).
#  3. KERNELGATE_NCU=1 over coalescing/.
#  4. A new user's project (.gpu/nu5: its tree, its test binary .gpu/nu5/kernels-test.xz and its
#     gpu.sh), in a copy of its own, twice: bless, gate twice, ncu.
# Steps 1-3 are `s34verify.sh a`, step 4 `s34verify.sh b` (one device call each, 600 s at most).
set -uo pipefail
PART=${1:-ab}
exec > >(tee -a "$OUT/log.txt") 2>&1
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w34$PART; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
HERE=$PWD
if [[ $PART == *a* ]]; then
# 1. Another checkout: the tree without its benchmark archives, two folders deeper, other names.
FAR=/tmp/far/away/kg-copy; mkdir -p $FAR
tar cf - --exclude=./baselines/nvidia-h200-sm90/benchmark --exclude=./.gpu/xz --exclude=./.gpu/nu5 . | tar xf - -C $FAR
modules() { python3 -c '
import csv, glob, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/**/*.csv", recursive=True)):
    with open(f) as h:
        first = h.readline()
        if "module_sha256" not in first: continue
        h.seek(0)
        for r in csv.DictReader(h):
            rows[r["trial"]] = r["module_sha256"]
for k in sorted(rows): print(k, rows[k])
' "$1"; }
for fam in blocksum/ coalescing/; do
  for i in 1 2; do
    for where in here far; do
      dir=$HERE; [ $where = far ] && dir=$FAR
      out=$W/id-${fam%/}-$where-$i
      (cd $dir && KERNELGATE_OUT_DIR=$out timeout 120 $HERE/.gpu/bin/kernels $fam --skip compile/ > $out.log 2>&1); echo "$fam $where $i: exit $? $(grep -h 'test result' $out.log | cut -c1-80)"
      modules $out > $out.modules
    done
    if [ -s $W/id-${fam%/}-here-$i.modules ] && cmp -s $W/id-${fam%/}-here-$i.modules $W/id-${fam%/}-far-$i.modules; then
      echo "  $fam run $i: the same module_sha256 for $(wc -l < $W/id-${fam%/}-here-$i.modules) trials from $HERE and $FAR"
    else
      echo "  $fam run $i: MODULES DIFFER or none"; diff $W/id-${fam%/}-here-$i.modules $W/id-${fam%/}-far-$i.modules | head -6
    fi
  done
done
head -3 $W/id-blocksum-here-1.modules
t identity
# 2. Whole-suite A/A through the paired path, twice.
for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i timeout 240 .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  echo "  verdicts: $(grep -hoE '^test .* \.\.\. (ok|FAILED|ignored)' $W/aa$i.log | awk '{print $NF}' | sort | uniq -c | tr '\n' ' ')"
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "  unchanged: $(grep -chE '^test .* unchanged' $W/aa$i.log); max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
# 3. ncu over coalescing/.
KERNELGATE_OUT_DIR=$W/ncu KERNELGATE_NCU=1 timeout 240 .gpu/bin/kernels coalescing/ --skip compile/ > $W/ncu.log 2>&1
echo "ncu: exit $?; $(grep -h 'test result' $W/ncu.log | tail -1 | cut -c1-150)"; grep -hE "profiled|same kernels" $W/ncu.log | cut -c1-200 | head -3
t ncu
fi
if [[ $PART == *b* ]]; then
# 4. The new user's project, in a copy of its own, twice.
if [ -f .gpu/nu5/kernels-test.xz ]; then
  for i in 1 2; do
    P=/tmp/nu5-$i; rm -rf $P; cp -r .gpu/nu5 $P; rm $P/kernels-test.xz
    xz -dc .gpu/nu5/kernels-test.xz > $P/kernels-test && chmod +x $P/kernels-test
    (cd $P && timeout 300 bash gpu.sh ./kernels-test) > $W/nu5-$i.log 2>&1
    echo "nu5 run $i: exit $?"; grep -hE "test result|^kernelgate: (baseline|wrote|blessed|profil)|regressed|improved|FAILED|error" $W/nu5-$i.log | cut -c1-180 | head -24
    t nu5-$i
  done
fi
fi
find $W -name samples.csv -delete; find $W -name '*.ncu-rep' -delete
t end; tar cJf $OUT/w34$PART.txz -C /tmp w34$PART
