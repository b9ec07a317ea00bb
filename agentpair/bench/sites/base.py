"""What every generated site shares: its server-side state and the actions it records, the loopback
HTTP server that serves it, the case a template draws (goal, start page, expected outcome) and the
HTML pieces its pages are made of (layout with a menu and breadcrumbs, tables, forms, pagers)."""

from __future__ import annotations

import html
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, Field

from agentpair.bench.loopback import serve_loopback

PAGE_SIZE = 6


class Action(BaseModel):
    """An irreversible thing a site recorded: what was done (`verb`), to which item, with which values."""

    verb: str
    item: str
    fields: dict[str, str] = Field(default_factory=dict)


class Expect(BaseModel):
    """A run's intended outcome: exactly these actions (each once, nothing else), and for a question
    the values its answer must hold."""

    actions: list[Action] = Field(default_factory=list)
    answer: list[str | float] | None = None


@dataclass
class Reply:
    status: int = 200
    body: str = ""
    location: str = ""


def redirect(location: str) -> Reply:
    return Reply(303, location=location)


NOT_FOUND = Reply(404, "<h1>Not found</h1>")


class Site:
    """One generated site: content drawn from a seed, state changed by POSTs, the actions it recorded.
    A family's site answers `get(path, query)` and `post(path, form)` with HTML (a str) or a Reply."""

    name = "Site"
    menu: list[tuple[str, str]] = []

    def __init__(self) -> None:
        self.actions: list[Action] = []
        self.lock = threading.Lock()

    def record(self, verb: str, item: str, **fields: Any) -> None:
        self.actions.append(Action(verb=verb, item=item, fields={k: str(v) for k, v in fields.items()}))

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        return NOT_FOUND

    def post(self, path: str, form: dict[str, str]) -> str | Reply:
        return NOT_FOUND

    def page(self, title: str, body: str, crumbs: list[tuple[str, str]] = ()) -> str:
        """A whole page: the site's header and menu, breadcrumbs (label, link; the last one is this page)."""
        menu = " ".join(f'<a href="{href}">{esc(label)}</a>' for label, href in self.menu)
        trail = " &rsaquo; ".join(f'<a href="{href}">{esc(label)}</a>' if href else esc(label) for label, href in crumbs)
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)} - {esc(self.name)}</title>"
                f"<style>{STYLE}</style></head><body><header><strong>{esc(self.name)}</strong> <nav>{menu}</nav>"
                f"</header>{f'<nav aria-label=breadcrumb>{trail}</nav>' if crumbs else ''}<main>{body}</main>"
                f"<footer>&copy; {esc(self.name)}</footer></body></html>")


STYLE = ("body{font-family:sans-serif;margin:0}header{background:#234;color:#fff;padding:8px}"
         "header a{color:#dde;margin-left:12px}main{padding:12px}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:4px 8px}.error{color:#b00}label{display:block;margin:6px 0}")


def esc(text: Any) -> str:
    return html.escape(str(text))


def link(label: str, href: str) -> str:
    return f'<a href="{href}">{esc(label)}</a>'


def table(headers: list[str], rows: list[list[str]], caption: str = "") -> str:
    """A table; cells are HTML (escape text with `esc`)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def field(label: str, name: str, value: str = "", kind: str = "text") -> str:
    return f'<label>{esc(label)} <input type="{kind}" name="{name}" value="{esc(value)}"></label>'


def area(label: str, name: str, value: str = "") -> str:
    return f'<label>{esc(label)} <textarea name="{name}">{esc(value)}</textarea></label>'


def choice(label: str, name: str, options: list[str], chosen: str = "") -> str:
    opts = "".join(f'<option{" selected" if o == chosen else ""}>{esc(o)}</option>' for o in options)
    return f'<label>{esc(label)} <select name="{name}">{opts}</select></label>'


def form(action: str, inner: str, submit: str, method: str = "post") -> str:
    return f'<form method="{method}" action="{action}">{inner}<button type="submit">{esc(submit)}</button></form>'


def errors(messages: list[str]) -> str:
    return "".join(f'<p class="error" role="alert">{esc(m)}</p>' for m in messages)


def confirm(site: Site, question: str, action: str, yes: str, back: str,
            crumbs: list[tuple[str, str]] = ()) -> str:
    """A confirmation page: the question, a button that does it (POST with confirm=yes), a way back."""
    body = (f"<h1>Please confirm</h1><p>{esc(question)}</p>"
            + form(action, '<input type="hidden" name="confirm" value="yes">', yes) + link("Cancel", back))
    return site.page("Confirm", body, crumbs)


def pages(items: list[Any], query: dict[str, str], base: str) -> tuple[list[Any], str]:
    """One page of `items` (?page=N, PAGE_SIZE each) and the pager's links (`base` ends with ? or &)."""
    count = max(1, -(-len(items) // PAGE_SIZE))
    try:
        number = min(max(1, int(query.get("page", "1"))), count)
    except ValueError:
        number = 1
    links = [f"<span>Page {number} of {count}</span>"]
    if number > 1:
        links.insert(0, link("Previous page", f"{base}page={number - 1}"))
    if number < count:
        links.append(link("Next page", f"{base}page={number + 1}"))
    return items[(number - 1) * PAGE_SIZE: number * PAGE_SIZE], f"<nav aria-label=pages>{' '.join(links)}</nav>"


def words_match(text: str, query: str) -> bool:
    """A site search: every word of the query in the text, case-insensitively."""
    return all(w in text.casefold() for w in query.casefold().split())


@dataclass
class Case:
    """One drawn task: a fresh site, the goal in words, where the run starts and what it should achieve."""

    site: Site
    goal: str
    expect: Expect
    start: str = "/"


Template = Callable[[random.Random], Case]


class _Handler(BaseHTTPRequestHandler):
    site: Site

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        with self.site.lock:
            self._send(self.site.get(url.path, dict(parse_qsl(url.query))))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
        with self.site.lock:
            self._send(self.site.post(urlsplit(self.path).path, dict(parse_qsl(raw, keep_blank_values=True))))

    def _send(self, reply: str | Reply) -> None:
        reply = Reply(body=reply) if isinstance(reply, str) else reply
        payload = reply.body.encode()
        self.send_response(reply.status)
        if reply.location:
            self.send_header("Location", reply.location)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def serve(site: Site) -> Iterator[str]:
    """Serve `site` on a free loopback port; yields its base URL."""
    with serve_loopback(type("SiteHandler", (_Handler,), {"site": site})) as url:
        yield url
