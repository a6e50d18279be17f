#!/usr/bin/env bash
# Session 32, call 1: session31/s31verify.sh without its plain run (the pool's nightlies of
# s30pool.sh, the next call, run the plain suite), printing into $OUT/log.txt as it goes so that a
# call cut short still says how far it got.
#
# Session 31's moves, for the first call of a session with a GPU (session 31 had none): the kernel
# sources handed down (source::Sources), the run's events through one reporter (report::events),
# the NVRTC work made ahead held by the run, the host-call and pool errors as kinds. Staged
# binaries of the commit under test: .gpu/xz/{kernels,kernelgate}.xz (scripts/stage, then xz).
#  1. Whole-suite A/A through the paired path, twice (as session 30's s30call1.sh): the timing path
#     must not have moved (86/86 unchanged, |delta| within session 30's 0.13-0.33 %).
#  2. A plain baseline run of the whole suite (no compile trials): module loads, ceilings, the
#     pool's on-open lines, each trial's inline line, the table, the run CSV's Wrote line.
#  3. KERNELGATE_NCU=1 over coalescing/ and transpose/: the ncu session's child checks the parent's
#     kernels (same_as_parent), its heartbeat goes through the reporter.
#  4. KERNELGATE_SANITIZE=memcheck and KERNELGATE_ISOLATE=1 over coalescing/: the checked child.
#  5. A same-run A/B against 094b787 (session 30's last commit: the same kernels, other library
#     code), with --test-threads 2 to put the trial lines on stderr.
# Each step: exit code, libtest's result line, the status lines' count and the first of each kind.
set -uo pipefail
exec > >(tee -a "$OUT/log.txt") 2>&1
mkdir -p .gpu/bin && for b in kernels kernelgate; do xz -dc .gpu/xz/$b.xz > .gpu/bin/$b && chmod +x .gpu/bin/$b || exit 9; done
T0=${EPOCHREALTIME%.*}; W=/tmp/w32; rm -rf $W; mkdir -p $W
t() { echo "[t=$(( ${EPOCHREALTIME%.*} - T0 )) s] $*"; }
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader | tee $W/gpu.txt
git log --oneline -1 | cut -c1-80; echo "094b787: $(git cat-file -t 094b787 2>&1)"
export KERNELGATE_REQUIRE_GPU=1 KERNELGATE_HISTORY=off
summary() {
  local name=$1 code=$2 log=$W/$1.log
  echo "$name: exit $code; $(grep -h 'test result' $log | tail -1 | cut -c1-150)"
  echo "  kernelgate lines: $(grep -c '^kernelgate' $log); errors: $(grep -ciE 'panicked|harness error|error:' $log)"
  grep -hE "^kernelgate: (NVRTC|input seed|baseline |wrote|recorded|profiling|ncu |memcheck|isolate|A/B|WARNING|warning)" $log | cut -c1-160 | head -8
  grep -h "timed trials:" $log | cut -c1-200 | head -1
  t $name
}
step() { local name=$1; shift; timeout ${TIMEOUT:-240} "$@" > $W/$name.log 2>&1; summary $name $?; }
for i in 1 2; do
  KERNELGATE_AB=HEAD KERNELGATE_AB_IDENTICAL=time KERNELGATE_OUT_DIR=$W/aa$i step aa$i .gpu/bin/kernels --skip compile/
  grep -hE "\.\.\. .*(regressed|improved|ambiguous|invalid|FAILED)" $W/aa$i.log | cut -c1-200 | head -8
  echo "  max |delta| among unchanged: $(grep -hE '^test .* unchanged' $W/aa$i.log | grep -oE '[+-][0-9]+\.[0-9]+%' | sed 's/[-+%]//g' | sort -g | tail -1) %"
done
KERNELGATE_OUT_DIR=$W/ncu KERNELGATE_NCU=1 step ncu .gpu/bin/kernels coalescing/ --skip compile/
grep -hE "profiled|same kernels|changed while" $W/ncu.log | cut -c1-200 | head -3
TIMEOUT=180 KERNELGATE_OUT_DIR=$W/memcheck KERNELGATE_SANITIZE=memcheck step memcheck .gpu/bin/kernels coalescing/ --skip compile/
TIMEOUT=180 KERNELGATE_OUT_DIR=$W/isolate KERNELGATE_ISOLATE=1 step isolate .gpu/bin/kernels coalescing/ --skip compile/
KERNELGATE_OUT_DIR=$W/ab KERNELGATE_AB=094b787 step ab .gpu/bin/kernels transpose/ --skip compile/ --test-threads 2
grep -hE "^kernelgate: transpose/" $W/ab.log | cut -c1-160 | head -4
find $W -name samples.csv -delete; find $W -name '*.ncu-rep' -delete
t end; tar cJf $OUT/w32.txz -C /tmp w32
