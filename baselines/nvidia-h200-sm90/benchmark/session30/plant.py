#!/usr/bin/env python3
"""Session 30's plants, written into the working tree's kernels (run from the project root):

- DRAM: `copy_vec4` (kernels/vectorization.cu) reads an extra 4.5 % of its input (threads below
  n4/22 read a float4 of the input's tail again; session 3's plants read an extra 4 % for +1.72 to
  +1.81 %). The value is not used unless it is 1e30, which no input holds: the output is the same.
- Compute: `formula_a` (kernels/divergence.cu) runs 272 dependent FMAs instead of 256, so both
  divergence cases issue (272 + 256) / 512 - 1 = +3.1 % of their FMAs. formula_a converges to 4x
  within 256 steps: 16 more leave every result bit-identical (checked on the CPU with fmaf over
  10^6 inputs of [-1, 1]).
"""
import pathlib, sys

def edit(path, old, new):
    p = pathlib.Path(path)
    text = p.read_text()
    if text.count(old) != 1:
        sys.exit(f"plant.py: {path}: expected one {old!r}")
    p.write_text(text.replace(old, new))

edit("kernels/vectorization.cu", "    if (i < n4) out[i] = in[i];\n}",
     "    if (i < n4) {\n        float4 v = in[i];\n        int extra = n4 / 22;\n"
     "        if (i < extra) { float4 w = in[n4 - extra + i]; if (w.x == 1.0e30f) v.x = w.y; }\n"
     "        out[i] = v;\n    }\n}")
edit("kernels/divergence.cu", "    for (int k = 0; k < STEPS; ++k) acc = fmaf(acc, 0.75f, x);",
     "    for (int k = 0; k < STEPS + 16; ++k) acc = fmaf(acc, 0.75f, x);")
print("planted: copy_vec4 +4.5 % input reads, formula_a +16 FMAs")
