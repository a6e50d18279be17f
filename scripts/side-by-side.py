#!/usr/bin/env python3
"""Times some of kernelgate's cases with triton.testing.do_bench and cupyx.profiler.benchmark.

The issue-4 side-by-side: the same kernel source (kernels/*.cu, compiled here by CuPy's NVRTC),
the same launch configuration and problem size as kernelgate's case, timed by two other tools on
the same GPU in the same device session. Prints one JSON object: per case and tool the number of
samples, the median, and the robust relative spread (1.4826 MAD / median) of the samples, in
microseconds and fractions. Runs where CuPy, PyTorch and Triton are installed (the H200 runner).

    python3 scripts/side-by-side.py [--seconds S] TRIAL...

- do_bench (Triton): cold, like kernelgate: it zeroes a 256 MB buffer before every timed call,
  and times each call with CUDA events; warm-up 25 ms, then about S seconds of calls.
- cupyx.profiler.benchmark (CuPy): hot (no cache flush); CUDA events per call; about S seconds.
Each case's output is checked against a CuPy reference before it is timed.
"""

import argparse
import json
import pathlib
import statistics
import sys

import cupy as cp
import numpy as np
import torch  # noqa: F401  (do_bench times on PyTorch's current stream: the legacy default stream, as CuPy's)
import triton
import triton.testing
from cupyx.profiler import benchmark

ROOT = pathlib.Path(__file__).resolve().parent.parent
# NVRTC options of harness/compile.rs (NVRTC_OPTIONS); CuPy adds the device's architecture.
OPTIONS = ("--std=c++17", "-lineinfo")
BLOCK = 256
SMS = cp.cuda.Device().attributes["MultiProcessorCount"]


def module(file):
    return cp.RawModule(code=(ROOT / "kernels" / file).read_text(), options=OPTIONS, backend="nvrtc")


def uniform(n):
    return cp.random.uniform(-1.0, 1.0, n, dtype=cp.float32)


def copy_case():
    n = 1 << 26
    x, out = uniform(n), cp.full(n, cp.nan, cp.float32)
    k = module("coalescing.cu").get_function("copy_coalesced")
    launch = lambda: k((n // BLOCK,), (BLOCK,), (x, out, np.int32(n)))  # noqa: E731
    return launch, lambda: bool(cp.array_equal(out, x))


def strided_s1_case():
    n, stride = 1 << 24, 1
    x, out = uniform(n * stride), cp.full(n, cp.nan, cp.float32)
    k = module("coalescing.cu").get_function("read_strided")
    launch = lambda: k((n // BLOCK,), (BLOCK,), (x, out, np.int32(n), np.int32(stride)))  # noqa: E731
    return launch, lambda: bool(cp.array_equal(out, x[::stride]))


def transpose_padded_case():
    rows = cols = 8192
    x, out = uniform(rows * cols), cp.full(rows * cols, cp.nan, cp.float32)
    k = module("transpose.cu").get_function("transpose_shared_padded")
    launch = lambda: k((cols // 32, rows // 32), (32, 8), (x, out, np.int32(rows), np.int32(cols)))  # noqa: E731
    return launch, lambda: bool(cp.array_equal(out.reshape(cols, rows), x.reshape(rows, cols).T))


def saxpy_vec4_case():
    n, a = 1 << 26, np.float32(2.0)
    x, y = uniform(n), uniform(n)
    y0 = y.copy()
    k = module("vectorization.cu").get_function("saxpy_vec4")
    launch = lambda: k((8 * SMS,), (BLOCK,), (np.int32(n), a, x, y))  # noqa: E731

    def check():  # one launch on the initial y
        ok = bool(cp.allclose(y, a * x + y0, rtol=1e-6, atol=1e-6))
        y[...] = y0
        return ok

    return launch, check


# kernelgate trial name -> case (launch configuration as in cases/).
CASES = {
    "coalescing/copy/67108864": copy_case,
    "coalescing/read_strided_s1/16777216": strided_s1_case,
    "transpose/shared_padded/8192x8192": transpose_padded_case,
    "vectorization/saxpy_vec4/67108864": saxpy_vec4_case,
}


def summary(seconds):
    med = statistics.median(seconds)
    mad = statistics.median(abs(s - med) for s in seconds)
    return {"n": len(seconds), "median_us": med * 1e6, "robust_spread": 1.4826 * mad / med}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="timing budget per case and tool")
    parser.add_argument("trials", nargs="+", choices=sorted(CASES))
    args = parser.parse_args()
    out = {
        "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "cupy": cp.__version__,
        "triton": triton.__version__,
        "torch": torch.__version__,
        "cases": {},
    }
    for trial in args.trials:
        launch, check = CASES[trial]()
        launch()
        cp.cuda.Device().synchronize()
        if not check():
            sys.exit(f"side-by-side: {trial}: the output does not match the CuPy reference")
        bench = triton.testing.do_bench(launch, warmup=25, rep=1000 * args.seconds, return_mode="all")
        hot = benchmark(launch, (), n_warmup=10, n_repeat=1_000_000, max_duration=args.seconds)
        out["cases"][trial] = {
            "do_bench": summary([ms / 1e3 for ms in bench]),
            "cupyx": summary([float(s) for s in hot.gpu_times[0]]),
        }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
