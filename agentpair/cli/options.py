"""The command line's shared options and the types that check each value where it is parsed (a bad
one is a usage error naming its option, exit 2): seconds and counts above 0, http(s) URLs, files to write.

Apart from agentpair.cli.main so that its subcommand modules import these without importing it.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agentpair.errors import UsageError

ENDPOINT_VARIABLES = ("OPENAI_BASE_URL", "AGENTPAIR_EXECUTOR_BASE_URL")


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above 0."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"takes seconds above 0, not {text}")
    return seconds


def positive_int(text: str) -> int:
    """An argparse type: a whole number of 1 or more."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"takes a number of 1 or more, not {text}")
    return number


def http_url(text: str) -> str:
    """An argparse type: an http(s) URL with a host, such as http://127.0.0.1:8080/v1."""
    try:
        parts = urlsplit(text)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != -1
    except ValueError:  # reading .port raises it for a port that is no number or out of range
        valid = False
    if not valid:
        raise argparse.ArgumentTypeError(f"takes an http(s) URL with a host, such as http://127.0.0.1:8080/v1, "
                                         f"not {text!r}")
    return text


def allowed_origin(text: str) -> str:
    """An argparse type: `*`, or an http(s) origin, with `*.` for every subdomain (https://*.example.com)."""
    return text if text == "*" else http_url(text)


def writable_file(text: str) -> Path:
    """An argparse type: a file that can be written: not a folder, and where it is missing, the nearest
    folder above it that exists takes a new file (the folders between are made when it is written)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    folder = next(p for p in path.absolute().parents if p.exists()) if not path.exists() else None
    try:
        if folder is None:
            open(path, "a").close()  # exists: may it be written to?
        else:
            tempfile.TemporaryFile(dir=folder).close()
    except OSError as exc:
        where = "it" if folder is None else f"a new file in {folder}"
        raise argparse.ArgumentTypeError(f"cannot write {text!r} ({where}: {exc.strerror or exc})") from None
    return path


def check_endpoint_variables() -> None:
    """A UsageError naming the variable where an endpoint's URL set in the environment is no http(s) URL."""
    for name in ENDPOINT_VARIABLES:
        if value := os.environ.get(name):
            try:
                http_url(value)
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"{name} {exc}") from None


def planner_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--planner-base-url", type=http_url, metavar="URL", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL, "
                                                   "else the embedded llama.cpp planner)")
    parser.add_argument("--planner-model", help="model name (default: AGENTPAIR_PLANNER_MODEL)")
    parser.add_argument("--grounding", choices=["structural", "heuristic", "none"],
                        help="what the page and task allow a plan: the page's elements and the values given "
                             "(structural), also the rules read from the goal and the page (heuristic), or the "
                             "plain plan schema (none); default heuristic for the embedded planner, none for an endpoint")
    parser.add_argument("--schema-mode", choices=["pattern", "strict"],
                        help="how an endpoint is sent plan schemas: as they are, regex patterns and all (llama.cpp, "
                             "vLLM), or in the strict subset OpenAI enforces (default: strict for api.openai.com)")
    parser.add_argument("--planner-timeout", type=positive_seconds, metavar="S",
                        help="give up a planner request after S seconds (default 60; retried up to 4 times)")


def planner_from_args(args: argparse.Namespace) -> Any:
    """The planner the options name: OpenAIPlanner on --planner-base-url, else the default one."""
    from agentpair.agent.defaults import default_planner
    from agentpair.planner.client import OpenAIPlanner

    check_endpoint_variables()
    options: dict[str, Any] = {"timeout_s": args.planner_timeout} if getattr(args, "planner_timeout", None) else {}
    if getattr(args, "grounding", None) is not None:
        options["grounding"] = None if args.grounding == "none" else args.grounding
    if getattr(args, "planner_base_url", None):
        return OpenAIPlanner(base_url=args.planner_base_url, model=args.planner_model,
                             schema_mode=getattr(args, "schema_mode", None), **options)
    if getattr(args, "schema_mode", None) and os.environ.get("OPENAI_BASE_URL"):  # the embedded one grounds by pattern
        options["schema_mode"] = args.schema_mode
    levels = getattr(args, "concurrency", None) or 1  # runs at once: an embedded planner decodes that many calls together
    slots = max(levels) if isinstance(levels, list) else levels
    return default_planner(single_model=getattr(args, "single_model", False), slots=slots, **options)
