#!/bin/bash
# The checks that need a CUDA GPU, as one run (about 5 minutes): the GPU tests, the shipped executors
# (diffusion and AR baseline) evaluated on the held-out split on the GPU in bf16 and, on the same machine, on its
# CPU in float32; then the forward timings of an 8B-shaped LLaDA-layout model.
# Needs only torch, tokenizers, safetensors, jsonschema (executor_engine's imports) and pytest, and
# data/executor/heldout.jsonl (`python -m agentpair.training.datagen.build --out data/executor`).
# Writes gpu.txt, eval-cuda.json, eval-cpu.json and bench-gpu.json to $OUT (default runs/gpu-checks).
set -u
out=${OUT:-runs/gpu-checks}
py=${PYTHON:-python3}
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  $py -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"; } > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
timeout 120 $py -m pytest -q -p no:cacheprovider tests/engine/test_engine_gpu.py
echo "rc=$?"
for device in cuda cpu; do
  echo "evaluating the shipped executors on $device"
  timeout 200 $py - "$device" > "$out/eval-$device.json" <<'EOF'
import json, sys
from executor_engine.training.evaluate import evaluate
w = "agentpair/weights/"
print(json.dumps(evaluate(w + "executor", w + "executor-ar", "data/executor/heldout.jsonl",
                          device=sys.argv[1])))
EOF
  echo "rc=$?"
done
echo "8B-shaped forward timings"
timeout 150 $py -m executor_engine.bench_gpu > "$out/bench-gpu.json"
echo "rc=$?"
