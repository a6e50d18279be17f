#!/usr/bin/env bash
# Session 23, call 2: keeps the suite binary of the commit before the element types (7844d84) on
# the warm machine (.gpu/keep/, git-ignored), for call 3 to run beside the new one: a call carries
# one binary with this tree.
set -uo pipefail
mkdir -p .gpu/keep && xz -dc .gpu/xz/old.xz > .gpu/keep/kernels-old && chmod +x .gpu/keep/kernels-old || exit 9
nvidia-smi --query-gpu=uuid --format=csv,noheader
ls -la .gpu/keep
