"""The command line's shared options and their parsing: the planner's, and seconds above 0.

Apart from agentpair.cli.main so that its subcommand modules import these without importing it.
"""

from __future__ import annotations

import argparse
import os
from typing import Any


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"takes seconds above 0, not {text}")
    return seconds


def planner_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--planner-base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL, "
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
