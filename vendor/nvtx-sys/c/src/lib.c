/*
 * SPDX-FileCopyrightText: Copyright (c) 2024-2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 */

#define NVTX_EXPORT_API
#include "nvtx3/nvToolsExt.h"

#ifdef ENABLE_CUDA
#include "nvtx3/nvToolsExtCuda.h"
#endif

#ifdef ENABLE_CUDART
#include "nvtx3/nvToolsExtCudaRt.h"
#endif

#include "nvtx3/nvToolsExtSync.h"
