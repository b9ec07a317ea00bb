"""Per-run browser safety policy: which origins may be reached, which secrets may be typed where,
and the SafetyEvent record of everything the browser refused.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, Field

SecretField = Literal["password", "any"]
EventKind = Literal["navigation", "redirect", "request", "frame", "websocket", "popup", "download", "file_url", "secret"]
INERT_SCHEMES = {"about", "data", "blob", "chrome-error"}
DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str:
    """scheme://host[:port], lower-cased, default ports dropped; '' for URLs without a host."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme == "file":
        return "file://"
    if not parts.hostname:
        return ""
    try:
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def _matches(origin: str, pattern: str) -> bool:
    """Exact origin match, '*' (any http/https origin) or a '*.' subdomain wildcard."""
    if pattern == "*":
        return origin.startswith(("http://", "https://"))
    if "://*." in pattern:
        scheme, suffix = pattern.split("://*.", 1)
        return origin.startswith(f"{scheme}://") and origin.endswith("." + suffix)
    return origin == pattern


class SafetyEvent(BaseModel):
    """One thing the browser refused or noticed; `violation` marks those the run is judged on."""

    kind: EventKind
    url: str = ""
    detail: str
    violation: bool = True

    def message(self) -> str:
        return f"blocked {self.kind}: {self.detail}"


class TaskPolicy(BaseModel):
    """The limits of one run; set by start_task only, so nothing a page says can widen them."""

    start_url: str | None = None
    allowed_origins: list[str] = Field(default_factory=list)
    secrets: dict[str, str] = Field(default_factory=dict, repr=False)
    secret_fields: dict[str, SecretField] = Field(
        default_factory=dict, description="secret name -> where it may be typed (default: password)"
    )
    allow_downloads: bool = False
    allow_file_urls: bool = False

    def model_post_init(self, _context: object) -> None:
        patterns = [p if p == "*" or "://*." in p else origin_of(p) for p in self.allowed_origins]
        if self.start_url and origin_of(self.start_url) not in ("", "file://"):
            patterns.append(origin_of(self.start_url))
        self.allowed_origins = sorted({p for p in patterns if p})

    def allows(self, url: str) -> bool:
        scheme = urlsplit(url).scheme.lower()
        if scheme in INERT_SCHEMES:
            return True
        if scheme == "file":
            return self.allow_file_urls
        origin = origin_of(url)
        return bool(origin) and any(_matches(origin, p) for p in self.allowed_origins)

    def refusal(self, url: str) -> str | None:
        """Why a navigation to url is refused, or None when it is allowed."""
        if self.allows(url):
            return None
        if urlsplit(url).scheme.lower() == "file":
            return f"file:// URLs are not allowed in this run ({url})"
        allowed = ", ".join(self.allowed_origins) or "none"
        return f"{origin_of(url) or url} is not an allowed origin (allowed: {allowed})"

    def secret_allowed_in(self, name: str, field_is_password: bool) -> bool:
        return field_is_password or self.secret_fields.get(name, "password") == "any"


def resolve_url(url: str, base: str) -> str:
    """An absolute URL for what the agent typed: relative to the page, or https:// when bare."""
    url = url.strip()
    if urlsplit(url).scheme:
        return url
    if base.startswith(("http://", "https://")):
        return urljoin(base, url)
    return "https://" + url
