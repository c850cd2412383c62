#!/bin/sh
# The GPU workloads (bench/gpu.ts): paralens webgpu, jax-js WebGPU and TensorFlow.js WebGPU
# in one run, on the adapter Dawn (the `webgpu` npm package) finds. On a machine without a GPU
# it falls back to Chromium's SwiftShader (apt-get install libvulkan1 chromium): then the
# numbers are a CPU emulation's, useful only to see that everything runs.
#   bench/gpu.sh [--sizes 1024,2048,4096] [--repeats 5] [--json]
set -e
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
exec node dist/bench/gpu.js "$@"
