#!/usr/bin/env bash
# llama-cpp-python (llama.cpp's OpenAI-compatible server), compiled once per CPU level and kept as a
# wheel under ~/.cache/agentpair/wheels/<version>-<level>: avx512 where the CPU has AVX-512 with VNNI,
# VBMI and BF16 (prompts evaluate about 18% faster than the avx2 build on such a CPU), else avx2
# (any x86-64 from 2013 on). Not -march=native: a native build also turns on AMX, whose kernels
# crash under hypervisors that do not grant the tile state. The level is in the wheel's folder
# name because pip's own wheel cache keys a wheel by its source alone and would hand an avx512
# build to a CPU without it. About 5 minutes per level on 2 cores.
set -euo pipefail
py=${1:-.venv/bin/python}
version=0.3.36
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
level=avx2
cmake="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"  # x86-64 with AVX2, FMA, F16C, BMI2
if [[ $flags == *" avx512f "* && $flags == *" avx512bw "* && $flags == *" avx512vl "* &&
      $flags == *" avx512_vnni "* && $flags == *" avx512vbmi "* && $flags == *" avx512_bf16 "* ]]; then
  level=avx512
  cmake="$cmake -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_BF16=ON"
fi
have=$("$py" -c "import llama_cpp as l; print(l.__version__, l.llama_print_system_info().decode())" 2>/dev/null || true)
built=$([[ $have == *"AVX512 = 1"* ]] && echo avx512 || echo avx2)
if [[ $have == "$version "* && $built == "$level" ]]; then
  exit 0  # this build is installed already
fi
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/agentpair/wheels/llama-cpp-python-$version-$level"
if ! ls "$wheels"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $version for $level (about 5 min, once)" >&2
  CMAKE_ARGS="$cmake" CMAKE_BUILD_PARALLEL_LEVEL=2 \
    "$py" -m pip wheel -q --no-deps --no-cache-dir -w "$wheels" "llama-cpp-python==$version"
fi
"$py" -m pip install -q --force-reinstall --no-deps "$wheels"/llama_cpp_python-"$version"-*.whl
"$py" -m pip install -q "llama-cpp-python[server]==$version" --find-links "$wheels"
