"""One OpenAI-compatible chat endpoint asked for JSON: retries, structured-output format, errors.

Shared by the planner and the OpenAI-compatible executor. Retries (429, 5xx, timeouts,
connection errors; tenacity) use exponential backoff with jitter and honour Retry-After; a rejection
of the response format, or of a parameter the model does not take (a reasoning model's temperature,
max_tokens for max_completion_tokens), switches and is never spent against the retry budget.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from agentpair.tracing.redaction import Redactor

StructuredOutput = Literal["auto", "json_schema", "llamacpp"]
RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
TIMINGS_HEADER = "x-agentpair-timings"  # where the embedded server says where a call's time went
# Which format an endpoint accepted, decided once per base URL and remembered.
_FORMAT_BY_ENDPOINT: dict[str, str] = {}
# The parameters a model rejected (temperature, max_tokens), per (base URL, model), remembered.
_DROPPED_BY_MODEL: dict[tuple[str, str], set[str]] = {}


class EndpointError(RuntimeError):
    """The endpoint could not give a usable answer; names the endpoint and the last cause."""

    def __init__(self, message: str, attempts: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


@dataclass
class Attempt:
    """One HTTP attempt, as recorded in the trace."""

    number: int
    format: str
    outcome: Literal["ok", "retry", "format_rejected", "parameter_rejected", "error"]
    status: int | None = None
    error: str | None = None
    ms: float = 0.0
    started_ns: int = 0


@dataclass
class Completion:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""
    finish_reason: str | None = None
    attempts: list[Attempt] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # where the server's time went, if it says


def _is_format_rejection(exc: openai.APIStatusError) -> bool:
    """A 4xx/5xx that complains about the response format rather than the request or load."""
    if exc.status_code not in (400, 422, 500, 501):
        return False
    body = f"{exc.message} {exc.body}".lower()
    return any(word in body for word in ("response_format", "json_schema", "response format"))


def _retry_after_s(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


class _Retry(Exception):
    """An attempt that failed in a way a later one may not (429, 5xx, timeout, lost connection)."""

    def __init__(self, cause: Exception | None) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _rejected_parameter(exc: openai.APIStatusError) -> str | None:
    """The request parameter a 400 says this model does not take ("temperature", "max_tokens"), if any."""
    body = f"{exc.message} {exc.body}".lower()
    if exc.status_code != 400 or not any(w in body for w in ("unsupported", "not supported", "does not support")):
        return None
    return next((p for p in ("max_tokens", "temperature") if f"'{p}'" in body or f'"{p}"' in body or f"`{p}`" in body), None)


class MalformedAnswer(RuntimeError):
    """A 2xx answer that is not a chat completion with a choice."""


def _chat_completion(raw: Any) -> Any:
    """The parsed chat completion of a raw answer, or MalformedAnswer saying what came instead."""
    try:
        response = raw.parse()
    except (json.JSONDecodeError, ValueError) as exc:
        response = exc
    if isinstance(response, Exception) or not getattr(response, "choices", None):
        body = " ".join(raw.http_response.text.split())[:120]
        kind = raw.http_response.headers.get("content-type", "no content type")
        raise MalformedAnswer(f"the answer was not a chat completion ({kind}): {body!r}")
    return response


def _timings(header: str | None) -> dict[str, float]:
    """The server's TIMINGS_HEADER (agentpair.llm.llamacpp_server) as numbers; {} when absent or unreadable."""
    try:
        values = json.loads(header) if header else {}
    except json.JSONDecodeError:
        return {}
    return {k: float(v) for k, v in values.items() if isinstance(v, (int, float))} if isinstance(values, dict) else {}


def _response_format(fmt: str, schema: dict[str, Any], name: str, strict: bool = False) -> dict[str, Any]:
    if fmt == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}
    return {"type": "json_object", "schema": schema}


class Endpoint:
    """An OpenAI-compatible endpoint at `base_url`, asked for JSON answers."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        structured_output: StructuredOutput = "auto",
        timeout_s: float = 60.0,
        max_attempts: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        temperature: float = 0.0,
        max_tokens: int = 1024,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:  # not after four attempts at it
            raise ValueError(f"an endpoint's base URL is an http(s) URL with a host, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key or "not-needed"
        self.model = model
        self.structured_output = structured_output
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._redactor = Redactor(keys=[self.api_key])  # a server may echo the key in its error text
        self._client = openai.AsyncOpenAI(
            base_url=self.base_url, api_key=self.api_key, max_retries=0, timeout=timeout_s
        )

    def identity(self) -> dict[str, Any]:
        """What a trace header may record (never the key)."""
        return {"base_url": self.base_url, "model": self.model, "structured_output": self.format()}

    async def served_models(self) -> list[str]:
        """The model ids the server lists at /models; [] where it lists none or cannot be asked."""
        try:
            page = await self._client.models.list()
        except (openai.OpenAIError, httpx.HTTPError, ValueError):
            return []
        return [m.id for m in page.data if getattr(m, "id", None)]

    def format(self) -> str:
        if self.structured_output != "auto":
            return self.structured_output
        return _FORMAT_BY_ENDPOINT.get(self.base_url, "json_schema")

    def _backoff(self, retry: int, exc: Exception) -> float:
        after = _retry_after_s(exc)
        if after is not None:
            return min(after, self.max_backoff_s)
        return min(self.max_backoff_s, self.backoff_s * 2**retry) * (0.5 + random.random() / 2)

    async def complete_json(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str = "answer",
        on_attempt: Callable[[Attempt], None] | None = None,
        strict: bool = False,
    ) -> Completion:
        """Ask for a JSON answer under `schema` (`strict`: one in the strict subset, llm.strict, the
        server is to enforce as such); the returned text is not yet validated. Retries (tenacity)
        back off between tries; a rejected format or parameter is re-asked at once."""
        attempts: list[Attempt] = []
        retrying = AsyncRetrying(stop=stop_after_attempt(self.max_attempts), wait=self._wait,
                                 retry=retry_if_exception_type(_Retry), reraise=True)
        async for trial in retrying:
            with trial:
                final = trial.retry_state.attempt_number >= self.max_attempts
                return await self._ask(messages, schema, name, attempts, on_attempt, final, strict)
        raise AssertionError("unreachable: tenacity returns or raises")

    async def _ask(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str, attempts: list[Attempt],
                   on_attempt: Callable[[Attempt], None] | None, final: bool, strict: bool) -> Completion:
        """One try; _Retry where a later try may succeed, EndpointError where none will (or `final`)."""
        while True:  # each pass is an attempt; only a rejected format or parameter loops
            fmt, started = self.format(), time.perf_counter()
            attempt = Attempt(number=len(attempts) + 1, format=fmt, outcome="ok", started_ns=time.time_ns())
            failure: Exception | None = None
            try:
                raw = await self._client.chat.completions.with_raw_response.create(
                    model=self.model,
                    messages=messages,  # type: ignore[arg-type]
                    response_format=_response_format(fmt, schema, name, strict),  # type: ignore[arg-type]
                    **self._sampling(),
                )
                response = _chat_completion(raw)
            except MalformedAnswer as exc:  # a proxy's HTML page, a cut-off body: retried like a 5xx
                attempt.status, attempt.error, attempt.outcome = raw.http_response.status_code, str(exc)[:500], "retry"
                failure = exc
            except openai.APIStatusError as exc:
                attempt.status, attempt.error = exc.status_code, f"HTTP {exc.status_code}: {exc.message}"[:500]
                if self.structured_output == "auto" and fmt == "json_schema" and _is_format_rejection(exc):
                    attempt.outcome = "format_rejected"
                    _FORMAT_BY_ENDPOINT[self.base_url] = "llamacpp"
                elif (param := _rejected_parameter(exc)) and param not in self._dropped():
                    attempt.outcome = "parameter_rejected"
                    _DROPPED_BY_MODEL.setdefault((self.base_url, self.model), set()).add(param)
                else:
                    attempt.outcome = "retry" if exc.status_code in RETRYABLE_STATUS else "error"
                failure = exc
            except (openai.APITimeoutError, openai.APIConnectionError, httpx.TransportError) as exc:
                attempt.error, attempt.outcome = f"{type(exc).__name__}: {exc}"[:500], "retry"
                failure = exc
            if attempt.outcome == "retry" and final:
                attempt.outcome = "error"
            attempt.error = attempt.error and self._redactor.text(attempt.error)
            attempt.ms = (time.perf_counter() - started) * 1e3
            attempts.append(attempt)
            if on_attempt:
                on_attempt(attempt)
            if attempt.outcome == "ok":
                if self.structured_output == "auto":
                    _FORMAT_BY_ENDPOINT.setdefault(self.base_url, fmt)
                return self._completion(response, attempts, _timings(raw.headers.get(TIMINGS_HEADER)))
            if attempt.outcome == "retry":
                raise _Retry(failure)
            if attempt.outcome == "error":
                raise EndpointError(f"{self.base_url} (model {self.model}) failed after {len(attempts)} attempt(s): "
                                    f"{attempt.error}", attempts) from failure

    def _dropped(self) -> set[str]:
        return _DROPPED_BY_MODEL.get((self.base_url, self.model), set())

    def _sampling(self) -> dict[str, Any]:
        """temperature and the completion limit, as this endpoint's model takes them: a reasoning model
        rejects a temperature and wants max_completion_tokens (learnt from its error, remembered)."""
        dropped = self._dropped()
        limit = "max_completion_tokens" if "max_tokens" in dropped else "max_tokens"
        return {limit: self.max_tokens, **({} if "temperature" in dropped else {"temperature": self.temperature})}

    def _wait(self, state: RetryCallState) -> float:
        """Seconds before the next try: the server's Retry-After, else exponential backoff with jitter."""
        failed = state.outcome.exception() if state.outcome else None
        cause = failed.cause if isinstance(failed, _Retry) else failed
        return self._backoff(state.attempt_number - 1, cause or RuntimeError())

    def _completion(self, response: Any, attempts: list[Attempt], timings: dict[str, float]) -> Completion:
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            text=choice.message.content or "",
            input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            output_tokens=getattr(usage, "completion_tokens", 0) or 0,
            model=response.model or self.model,
            finish_reason=choice.finish_reason,
            attempts=attempts,
            timings=timings,
        )

    async def aclose(self) -> None:
        await self._client.close()
