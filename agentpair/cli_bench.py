"""`agentpair bench ...`: benchmarks that print JSON (figures go to docs/benchmarks.md)."""

from __future__ import annotations

import argparse
import asyncio
import json

from rich.console import Console
from rich.table import Table

console = Console(stderr=True)


async def _bench_executor(args: argparse.Namespace) -> int:
    from executor_engine.bench import bench_executor

    with console.status("running the executor fill workload"):
        report = await asyncio.to_thread(bench_executor, args.model, args.device)
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"executor bench: {report['model']}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in report.items():
        if key != "model":
            table.add_row(key, json.dumps(value) if isinstance(value, dict) else f"{value:.3g}"
                          if isinstance(value, float) else str(value))
    Console().print(table)
    return 0


def add_bench_commands(sub: argparse._SubParsersAction) -> None:
    bench = sub.add_parser("bench", help="benchmarks (JSON with --json)")
    targets = bench.add_subparsers(dest="target", required=True)
    executor = targets.add_parser("executor", help="the diffusion executor on a fixed fill workload")
    executor.add_argument("--model", help="checkpoint directory (default: a tiny random-weight model)")
    executor.add_argument("--device", default="auto", help="auto, cpu or cuda")
    executor.add_argument("--json", action="store_true")
    executor.set_defaults(handler=_bench_executor)
