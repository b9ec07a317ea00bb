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

    if args.workload == "bulk":
        from agentpair.bench.bulk import bench_bulk

        with console.status("filling every record of the bulk pages and every field of the long forms: diffusion and AR side by side"):
            report = await asyncio.to_thread(bench_bulk, args.limit or 24, model=args.model, ar_model=args.ar_model,
                                             device="cpu" if args.device == "auto" else args.device)
    elif args.eval:
        with console.status("evaluating the executor on the held-out split"):
            report = await asyncio.to_thread(_eval_report, args)
    else:
        with console.status("running the executor fill workload"):
            report = await asyncio.to_thread(bench_executor, args.model, args.device)
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"executor bench: {report['model']}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in report.items():
        if key not in ("model", "ar_model"):
            table.add_row(key, json.dumps(value) if isinstance(value, dict) else f"{value:.3g}"
                          if isinstance(value, float) else str(value))
    Console().print(table)
    return 0


def _eval_report(args: argparse.Namespace) -> dict:
    """Held-out accuracy and speed of the shipped (or given) diffusion and AR executors."""
    from pathlib import Path

    from agentpair.training.datagen.build import EVAL_PAGES, build
    from agentpair.executor.local import WEIGHTS
    from executor_engine.training.evaluate import evaluate

    data = Path(args.data)
    if not data.is_file() and data.stem in EVAL_PAGES:  # regenerated from its fixed seeds (renders in Chromium)
        build(data.parent, data.stem, EVAL_PAGES[data.stem])
    report = evaluate(args.model or WEIGHTS / "executor", args.ar_model or WEIGHTS / "executor-ar",
                      data, args.limit, device=args.device)
    return {"model": str(args.model or "shipped"), **report}


async def _bench_tracing(args: argparse.Namespace) -> int:
    from agentpair.bench.tracing import bench_tracing

    report = await asyncio.to_thread(bench_tracing, args.spans)
    print(json.dumps(report) if args.json else
          f"one span costs {report['tracing_us_per_span']:.0f} us with tracing on "
          f"({report['span_us_traced_p50']:.0f} us traced vs {report['span_us_untraced_p50']:.0f} us untraced)")
    return 0


async def _bench_loop(args: argparse.Namespace) -> int:
    from agentpair.bench.loop import main
    from agentpair.cli.options import planner_from_args

    return await main(args, planner_from_args(args))


def _levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        levels = []
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of positive numbers like 1,2,4")
    return levels


async def _bench_scenarios(args: argparse.Namespace) -> int:
    from agentpair.bench.scenarios import main
    from agentpair.cli.options import planner_from_args

    return await main(args, planner_from_args(args))


async def _bench_miniwob(args: argparse.Namespace) -> int:
    from agentpair.bench.miniwob_suite import main
    from agentpair.cli.options import planner_from_args

    return await main(args, planner_from_args(args))


async def _bench_sites(args: argparse.Namespace) -> int:
    from agentpair.bench.sites.run import main
    from agentpair.cli.options import planner_from_args

    return await main(args, planner_from_args(args))


async def _bench_soak(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from agentpair.bench.soak import bench_soak

    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task(f"{args.scenario}, one agent, {args.runs} runs", total=args.runs)
        report = await bench_soak(args.scenario, args.runs, lambda i, run: progress.update(bar, completed=i + 1),
                                  args.concurrency)
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"soak: {report['scenario']}, {report['successes']}/{report['runs']} solved")
    for column in ("", "processes", "open fds", "RSS MB", "with children MB"):
        table.add_column(column, justify="left" if not column else "right")
    for when in ("before", "after", "after_close"):
        r = report[when]
        table.add_row(when.replace("_", " "), str(r["processes"]), str(r["open_fds"]), f"{r['rss_mb']:.0f}",
                      f"{r['tree_rss_mb']:.0f}")
    Console().print(table)
    return 0


async def _bench_reliability(args: argparse.Namespace) -> int:
    import asyncio

    from agentpair.bench.reliability import main

    return await asyncio.to_thread(main, args)


async def _bench_planner(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.progress import Progress

    from agentpair.bench.planner import bench_planner, ensure_heldout

    await asyncio.to_thread(ensure_heldout, Path(args.data))  # with its own progress bar
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task("planning held-out examples", total=None)
        report = await asyncio.to_thread(
            bench_planner, Path(args.data), args.limit,
            False if args.no_lora else Path(args.lora) if args.lora else None,
            lambda done, total: progress.update(bar, completed=done, total=total),
            Path(args.wrong) if args.wrong else None)
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"planner bench: {report['model']} (LoRA: {report['lora'] or 'none'})")
    for column in ("family", "examples", "validity", "correctness", "call ms p50"):
        table.add_column(column, justify="left" if column == "family" else "right")
    for name, part in [("all", report), *report["per_family"].items()]:
        table.add_row(name, str(part["examples"]), f"{part['validity']:.0%}", f"{part['correctness']:.0%}",
                      f"{part['call_ms_p50']:.0f}")
    Console().print(table)
    return 0


def add_bench_commands(sub: argparse._SubParsersAction) -> None:
    from agentpair.cli.options import positive_int, writable_file

    bench = sub.add_parser("bench", help="benchmarks (JSON with --json)")
    targets = bench.add_subparsers(dest="target", required=True)
    executor = targets.add_parser("executor", help="the diffusion executor on a fixed fill workload")
    executor.add_argument("--model", help="checkpoint directory (default: a tiny random-weight model)")
    executor.add_argument("--device", default="auto", help="auto, cpu or cuda")
    executor.add_argument("--json", action="store_true")
    executor.add_argument("--eval", action="store_true",
                          help="held-out accuracy and speed: diffusion (threshold, one token per "
                               "forward) vs the AR baseline (default: the shipped models)")
    executor.add_argument("--workload", choices=["fixed", "bulk"], default="fixed",
                          help="bulk: every record of a table or list (10-16) into an array of objects, "
                               "diffusion vs the AR baseline (default: the shipped models)")
    executor.add_argument("--ar-model", help="AR baseline checkpoint for --eval and --workload bulk")
    executor.add_argument("--data", default="data/executor/heldout.jsonl",
                          help="held-out JSONL for --eval; heldout.jsonl (new names) and families.jsonl "
                               "(page families never trained on) are generated when missing")
    executor.add_argument("--limit", type=positive_int, help="evaluate N held-out examples spread over the split "
                                                    "(--workload bulk: N pages of each kind, default 24)")
    executor.set_defaults(handler=_bench_executor)
    tracing = targets.add_parser("tracing", help="the cost of one traced span (create, attributes, export)")
    tracing.add_argument("--spans", type=positive_int, default=200)
    tracing.add_argument("--json", action="store_true")
    tracing.set_defaults(handler=_bench_tracing)
    planner = targets.add_parser("planner", help="the embedded planner on held-out planner examples: "
                                                 "plan validity, correctness, latency")
    planner.add_argument("--data", default="data/planner/heldout.jsonl",
                         help="held-out JSONL (generated when missing)")
    planner.add_argument("--limit", type=positive_int, help="evaluate N held-out examples spread over the split")
    planner.add_argument("--lora", help="LoRA adapter GGUF (default: the shipped one)")
    planner.add_argument("--no-lora", action="store_true", help="the bare SmolLM2 model, for comparison")
    planner.add_argument("--wrong", type=writable_file, help="write each wrong plan beside its reference to this JSONL file")
    planner.add_argument("--json", action="store_true")
    planner.set_defaults(handler=_bench_planner)
    from agentpair.cli.options import planner_options

    loop = targets.add_parser("loop", help="planner + diffusion executor vs a single-model agent vs the AR "
                                           "executor, interleaved, with the time split (agentpair.bench.loop)")
    loop.add_argument("--scenarios", default="all", help="all, or scenario names separated by commas")
    loop.add_argument("--runs", type=positive_int, default=1, help="runs per scenario and configuration")
    loop.add_argument("--max-steps", type=positive_int, metavar="N", help="stop each run after N steps (default: the scenario's)")
    loop.add_argument("--plot", type=writable_file, default="docs/loop-split.png", metavar="PATH", help="the time-split PNG")
    loop.add_argument("--single-model-lora", metavar="GGUF",
                      help="the single-model configuration's planner adapter (default: the shipped one "
                           "trained on its format, agentpair/weights/planner-lora-single.gguf)")
    loop.add_argument("--json", action="store_true")
    planner_options(loop)
    loop.set_defaults(handler=_bench_loop)

    soak = targets.add_parser("soak", help="one bundled scenario N times by one agent in one process: child "
                                           "processes, open files and memory before and after")
    soak.add_argument("--scenario", default="login", help="a bundled scenario's name")
    soak.add_argument("--runs", type=positive_int, default=50)
    soak.add_argument("--concurrency", type=positive_int, default=1, metavar="N",
                      help="N runs at a time, each in a browser context of its own (default: one after another)")
    soak.add_argument("--json", action="store_true")
    soak.set_defaults(handler=_bench_soak)

    reliability = targets.add_parser("reliability", help="the CLI against a planner endpoint failing every way and "
                                                         "pages trying every way out: tracebacks, secrets shown, "
                                                         "off-origin requests, stray processes")
    reliability.add_argument("--json", action="store_true")
    reliability.set_defaults(handler=_bench_reliability)

    runs = targets.add_parser("scenarios", help="every bundled scenario N times on the default planner and "
                                                "executor: success rate, wall time, time split, failure reasons")
    runs.add_argument("--scenarios", default="all", help="all, or scenario names separated by commas")
    runs.add_argument("--runs", type=positive_int, default=1, help="runs per scenario")
    runs.add_argument("--max-steps", type=positive_int, metavar="N",
                      help="stop each run after N steps (default: the scenario's)")
    runs.add_argument("--concurrency", type=_levels, metavar="N[,M...]",
                      help="run N at a time in one process (one planner, one executor, a browser context each), "
                           "then M, ...: throughput, latency and planner queueing per level")
    runs.add_argument("--ray", action="store_true",
                      help="run them on Ray (the `ray` extra): a runner actor per run at a time, each with its "
                           "own Chromium, sharing one executor actor and one planner actor (embedded planner only)")
    runs.add_argument("--ray-address", metavar="ADDRESS",
                      help="a running Ray cluster's address (default: start a local one; RAY_ADDRESS is read by Ray)")
    runs.add_argument("--json", action="store_true")
    planner_options(runs)
    runs.set_defaults(handler=_bench_scenarios)

    from agentpair.bench.miniwob import add_arguments

    miniwob = targets.add_parser("miniwob", help="MiniWoB++ tasks (the miniwob package's pages) on the "
                                                 "default planner and executor: success rate, reward, steps")
    add_arguments(miniwob, positive_int)
    planner_options(miniwob)
    miniwob.set_defaults(handler=_bench_miniwob)

    from agentpair.bench.sites.run import add_arguments as add_sites_arguments

    sites = targets.add_parser("sites", help="generated multi-page sites (shop, jobs, forum, ...) on loopback, "
                                             "judged from what each site recorded: success, steps, planner calls, "
                                             "grounded answers")
    add_sites_arguments(sites)
    planner_options(sites)
    sites.set_defaults(handler=_bench_sites)
