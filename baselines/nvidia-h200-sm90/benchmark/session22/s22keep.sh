#!/usr/bin/env bash
# Session 22: unpacks the kernelgate program into .gpu/keep/ (ignored, kept on the warm machine)
# for the next call, which carries the example's suite binary.
mkdir -p .gpu/keep && xz -dc .gpu/xz/kernelgate.xz > .gpu/keep/kernelgate && chmod +x .gpu/keep/kernelgate
nvidia-smi --query-gpu=uuid --format=csv,noheader; ls -la .gpu/keep
