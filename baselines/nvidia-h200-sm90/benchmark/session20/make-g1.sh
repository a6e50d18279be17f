#!/usr/bin/env bash
# Builds .g1/repo (git-ignored through .git/info/exclude), the synthetic history that s20call1.sh
# and s20call2.sh run in: the suite's Cargo.toml, kernels/ and harness/cases/ at c0, then
# c1 README only; c2 a comment in kernels/coalescing.cu; c3 the planted change (the padded
# transpose tile padded by 2 floats: a 2-way bank conflict on its column reads); c4 a comment in
# kernels/reduction.cu. Run from the project root; carry ".g1" in the device call.
set -euo pipefail
root=$PWD
rm -rf .g1 && mkdir -p .g1/repo && cd .g1/repo
git init -q && git config user.email g1@kernelgate.invalid && git config user.name g1
cp "$root/Cargo.toml" . && cp -r "$root/kernels" . && mkdir -p harness && cp -r "$root/harness/cases" harness/
echo "synthetic history for G1" > README.md && git add -A && git commit -qm "c0: the suite's kernels (good)"
echo more >> README.md && git commit -qam "c1: README only"
echo "// an innocent comment" >> kernels/coalescing.cu && git commit -qam "c2: a comment in coalescing.cu"
sed -i 's/__shared__ float tile\[TILE_DIM\]\[TILE_DIM + 1\];/__shared__ float tile[TILE_DIM][TILE_DIM + 2];/' kernels/transpose.cu
git diff --quiet && { echo "make-g1: the padded tile was not found in kernels/transpose.cu" >&2; exit 1; }
git commit -qam "c3: pad the transpose tile by 2 floats (a 2-way bank conflict, planted)"
echo "// another innocent comment" >> kernels/reduction.cu && git commit -qam "c4: a comment in reduction.cu"
git log --oneline
