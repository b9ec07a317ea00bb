"""The time-split plot of `agentpair bench loop`: one stacked bar per configuration (planner,
executor, tools, framework; mean seconds per run), in the trace waterfall's colours. Needs
matplotlib (`pip install 'agentpair[bench]'`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

COLORS = {"planner": "#4c78a8", "executor": "#f58518", "tools": "#54a24b", "framework": "#bdbdbd"}


def plot_split(configs: dict[str, dict[str, Any]], path: str | Path, title: str) -> Path:
    """Save the bars for `configs` (name -> stats with `split_s` and `wall_s_p50`) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(configs)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    bottoms = [0.0] * len(names)
    for category, color in COLORS.items():
        values = [configs[name]["split_s"][category] for name in names]
        ax.bar(names, values, bottom=bottoms, label=category, color=color, width=0.6)
        bottoms = [b + v for b, v in zip(bottoms, values)]
    for x, (name, total) in enumerate(zip(names, bottoms)):
        ax.annotate(f"{total:.1f} s (p50 {configs[name]['wall_s_p50']:.1f} s)", (x, total),
                    ha="center", va="bottom", fontsize=9, xytext=(0, 3), textcoords="offset points")
    ax.set_ylabel("seconds per run (mean; start-up excluded)")
    ax.set_title(title, fontsize=11)
    ax.set_ylim(0, max(bottoms, default=1.0) * 1.15 or 1.0)
    ax.legend(loc="best", fontsize=9)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return out
