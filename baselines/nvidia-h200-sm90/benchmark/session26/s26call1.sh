#!/usr/bin/env bash
# Session 26, call 1: the binaries of 4cabaa7 (ncu values printed as nan are the tool's, never a
# counter change) and the baseline schema 3 commit (each entry's NVRTC, each counter's ncu).
#  1. Whole-suite A/A through the paired path, twice (the verdict step changed).
#  2. transpose/ with ncu: bless into a fresh baseline folder (schema 3: its nvrtc and ncu columns
#     printed), then gate twice against it.
#  3. The same gate through an ncu wrapper (KERNELGATE_NCU_PATH) that prints the real capture with
#     dram__bytes_read.sum as `nan` in every row: each trial must read `invalid (tool: ncu ...)`,
#     exit 0 by default.
#  4. The baseline's nvrtc column edited to 12.9 and its counters' ncu to 2024.1.0.0 (resealed):
#     the header names the NVRTC; with KERNELGATE_FAIL_ON=regressed,invalid and the nan wrapper,
#     each failing trial's message starts with both.
set -uo pipefail
ROOT=$PWD
mkdir -p .gpu/bin && xz -dc .gpu/xz/kernels.xz > .gpu/bin/kernels && xz -dc .gpu/xz/kernelgate.xz > .gpu/bin/kernelgate \
  && chmod +x .gpu/bin/kernels .gpu/bin/kernelgate || exit 9
T0=${EPOCHREALTIME%.*}; W=/tmp/w1; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
ncu --version | tail -1
export KERNELGATE_REQUIRE_GPU=1
for i in 1 2; do
  KERNELGATE_HISTORY=off KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i timeout 200 .gpu/bin/kernels --skip compile/ > $W/aa$i.log 2>&1
  echo "aa$i: exit $?; $(grep -h 'test result' $W/aa$i.log | tail -1 | cut -c1-150)"
  grep -h "timed trials:" $W/aa$i.log | cut -c1-200 | head -2
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
  t aa$i
done
B=$W/base; mkdir -p $B
step() { local name=$1; shift; timeout 200 "$@" > $W/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc; $(grep -h 'test result' $W/$name.log | tail -1 | cut -c1-120)"
  grep -h "WARNING" $W/$name.log | cut -c1-300 | head -3
  grep -hE "^test transpose.*\.\.\. " $W/$name.log | cut -c1-330 | head -6
  t $name; }
export KERNELGATE_HISTORY=off KERNELGATE_BASELINES=$B KERNELGATE_NCU=1
step bless env KERNELGATE_BLESS=1 .gpu/bin/kernels transpose/
head -1 $B/*/baseline.csv | tr ',' '\n' | tail -3 | tr '\n' ' '; echo
python3 - $B/*/baseline.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), "entries; schema", {r["schema_version"] for r in rows}, "nvrtc", {r["nvrtc"] for r in rows},
      "ncu of counters", {r["ncu"] for r in rows if r["metric"] != "time"}, "ncu of times", {r["ncu"] for r in rows if r["metric"] == "time"})
PY
step gate1 .gpu/bin/kernels transpose/
step gate2 .gpu/bin/kernels transpose/
cat > $W/ncu-nan <<'SH'
#!/usr/bin/env bash
# Real ncu; when it prints a report's raw page (--import ... --log-file F), dram__bytes_read.sum
# becomes nan in every kernel row of F.
real=$(command -v ncu)
"$real" "$@"; rc=$?
log=""; prev=""
for a in "$@"; do [ "$prev" = "--log-file" ] && log=$a; prev=$a; done
case " $* " in *" --import "*) [ -n "$log" ] && python3 - "$log" <<'PY'
import csv, sys
p = sys.argv[1]; lines = open(p).read().splitlines(keepends=True); out = []; col = None
for line in lines:
    if line.startswith('"'):
        r = next(csv.reader([line]))
        if col is None and "dram__bytes_read.sum" in r: col = r.index("dram__bytes_read.sum")
        elif col is not None and len(r) > col and r[0].isdigit():
            r[col] = "nan"; line = ",".join('"%s"' % c.replace('"', '""') for c in r) + "\n"
    out.append(line)
open(p, "w").write("".join(out))
PY
;; esac
exit $rc
SH
chmod +x $W/ncu-nan
step nan1 env KERNELGATE_NCU_PATH=$W/ncu-nan .gpu/bin/kernels transpose/
step nan2 env KERNELGATE_NCU_PATH=$W/ncu-nan .gpu/bin/kernels transpose/
grep -h "nan" $W/nan1.log | head -3 | cut -c1-300
K=$(ls -d $B/*/)
python3 - $K/baseline.csv <<'PY'
import csv, sys
p = sys.argv[1]; rows = list(csv.reader(open(p))); h = rows[0]
for r in rows[1:]:
    r[h.index("nvrtc")] = "12.9"
    if r[h.index("metric")] != "time": r[h.index("ncu")] = "2024.1.0.0"
csv.writer(open(p, "w", newline=""), lineterminator="\n").writerows(rows)
PY
.gpu/bin/kernelgate baseline reseal $K | tail -1
step env1 env KERNELGATE_NCU_PATH=$W/ncu-nan KERNELGATE_FAIL_ON=regressed,invalid .gpu/bin/kernels transpose/
step env2 .gpu/bin/kernels transpose/
t end
rm -rf $W/aa*/runs/*-baseline; find $W -name samples.csv -delete; find $W -name '*.ncu-rep' -delete
tar cJf $OUT/w1.txz -C /tmp w1
