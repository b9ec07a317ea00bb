"""The waterfall page of a traced run: one self-contained HTML file (inline CSS and JS, no
network) with every span on a timeline, its details on hover and click, and the summary tables."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from agentpair.tracing.reader import RunTree, SpanRecord, decode
from agentpair.tracing.summary import TraceSummary, summarize

EXCERPT_CHARS = 2000
COLUMNS = ("planner", "executor", "tools", "framework")

STYLE = """
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:18px;margin:0 0 4px} .meta{color:#555;margin:0 0 12px}
table{border-collapse:collapse;margin:0 16px 12px 0;display:inline-table;vertical-align:top}
td,th{border:1px solid #ddd;padding:2px 8px;text-align:right} th{background:#f4f4f4}
td:first-child,th:first-child,td.text{text-align:left}
.layout{display:flex;gap:12px;align-items:flex-start}
#waterfall{flex:1;min-width:0;border:1px solid #ddd}
.row{display:flex;align-items:center;height:20px;border-bottom:1px solid #f0f0f0;cursor:pointer}
.row:hover,.row.selected{background:#eef4ff}
.label{width:280px;flex:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;
  padding-left:calc(var(--depth) * 14px + 4px);box-sizing:border-box}
.ms{float:right;color:#888;padding-right:6px}
.track{position:relative;flex:1;height:14px}
.axis{height:18px;color:#888;font-size:11px;border-bottom:1px solid #ddd}
.tick{position:absolute;top:2px;border-left:1px solid #ccc;padding-left:2px;white-space:nowrap}
.bar{position:absolute;top:0;height:14px;min-width:1px;border-radius:2px}
.bar.error{outline:2px solid #d00}
.cat-planner{background:#4c78a8}.cat-executor{background:#f58518}.cat-tools{background:#54a24b}
.cat-startup{background:#9d9d9d}.cat-framework{background:#d6d6d6}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
#details{width:440px;flex:none;border:1px solid #ddd;padding:8px;max-height:85vh;overflow:auto}
#details pre{white-space:pre-wrap;word-break:break-word;background:#f8f8f8;padding:4px;margin:2px 0 8px}
"""

SCRIPT = """
const spans = JSON.parse(document.getElementById('span-data').textContent);
const panel = document.getElementById('details');
function show(row) {
  document.querySelectorAll('.row.selected').forEach(r => r.classList.remove('selected'));
  row.classList.add('selected');
  const s = spans[row.dataset.spanId];
  panel.replaceChildren();
  const add = (tag, text) => { const e = document.createElement(tag); e.textContent = text; panel.append(e); };
  add('h3', s.name);
  add('div', `${s.category} \\u00b7 ${s.duration_ms.toFixed(1)} ms \\u00b7 starts at ${s.start_ms.toFixed(1)} ms \\u00b7 ${s.status}`);
  for (const [key, value] of Object.entries(s.attributes)) { add('b', key); add('pre', value); }
  for (const event of s.events) { add('b', 'event ' + event.name); add('pre', event.attributes); }
}
document.querySelectorAll('.row[data-span-id]').forEach(row => {
  row.addEventListener('click', () => show(row));
});
"""


def render_waterfall(tree: RunTree, summary: TraceSummary | None = None) -> str:
    """The page as a string; the timeline runs from the first span (start-up) to the last."""
    summary = summary or summarize(tree)
    start = min((s.start_ns for s in tree.spans), default=0)
    total_ns = max((s.end_ns for s in tree.spans), default=start) - start
    rows = "\n".join([_axis(total_ns), *(_row(span, start, total_ns) for root in tree.roots for span in root.walk())])
    data = json.dumps({s.span_id: _details(s, start) for s in tree.spans}, ensure_ascii=False)
    data = data.replace("</", "<\\/")  # no "</script>" inside the script element
    legend = "".join(f'<span class="cat-{c}"></span>{c}' for c in (*COLUMNS, "startup"))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>agentpair trace: {escape(summary.goal or tree.path)}</title>
<style>{STYLE}</style></head>
<body>
<h1>{escape(summary.goal or "agentpair run")}</h1>
<p class="meta">{escape(_meta(summary))}</p>
{_warnings(summary)}
<section id="summary">{_category_table(summary)}{_tools_table(summary)}{_iteration_table(summary)}</section>
<p class="legend">{legend}</p>
<div class="layout">
<section id="waterfall" data-timeline-ms="{total_ns / 1e6:.3f}">
{rows}
</section>
<aside id="details">Hover a bar for its name and duration; click a row for its details.</aside>
</div>
<script type="application/json" id="span-data">{data}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def write_waterfall(tree: RunTree, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_waterfall(tree), encoding="utf-8")
    return path


def _row(span: SpanRecord, start_ns: int, total_ns: int) -> str:
    category = span.category or "framework"
    left = 100 * (span.start_ns - start_ns) / total_ns if total_ns else 0.0
    width = 100 * (span.end_ns - span.start_ns) / total_ns if total_ns else 0.0
    ms = (span.end_ns - span.start_ns) / 1e6
    error = " error" if span.status == "ERROR" else ""
    return (f'<div class="row" data-span-id="{escape(span.span_id)}" style="--depth:{span.depth}">'
            f'<div class="label">{escape(span.name)}<span class="ms">{ms:.1f} ms</span></div><div class="track">'
            f'<div class="bar cat-{escape(category)}{error}" data-duration-ms="{ms:.3f}" '
            f'style="left:{left:.4f}%;width:{width:.4f}%" title="{escape(span.name)}: {ms:.1f} ms">'
            f'</div></div></div>')


def _axis(total_ns: int, ticks: int = 5) -> str:
    marks = "".join(f'<span class="tick" style="left:{100 * i / ticks:.1f}%">{total_ns * i / ticks / 1e6:.0f} ms</span>'
                    for i in range(ticks))
    return f'<div class="row axis"><div class="label">span</div><div class="track">{marks}</div></div>'


def _details(span: SpanRecord, start_ns: int) -> dict[str, Any]:
    return {
        "name": span.name, "category": span.category or "framework", "status": span.status,
        "duration_ms": (span.end_ns - span.start_ns) / 1e6, "start_ms": (span.start_ns - start_ns) / 1e6,
        "attributes": {k: _excerpt(v) for k, v in span.attributes.items()},
        "events": [{"name": e.name, "attributes": _excerpt(e.attributes)} for e in span.events],
    }


def _excerpt(value: Any) -> str:
    """A value as readable text: JSON pretty-printed, cut to EXCERPT_CHARS."""
    data = decode(value)
    text = data if isinstance(data, str) else json.dumps(data, indent=1, ensure_ascii=False)
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + f"... ({len(text)} chars)"


def _meta(summary: TraceSummary) -> str:
    outcome = ("incomplete run" if not summary.complete
               else f"finished: {summary.finished} ({summary.stop_reason})")
    return (f"agent {summary.agent} · planner {summary.planner} · executor {summary.executor} · "
            f"wall {summary.wall_s:.3f} s · start-up {summary.startup_s:.3f} s · {outcome}")


def _warnings(summary: TraceSummary) -> str:
    return "".join(f'<p class="meta">⚠ {escape(w)}</p>' for w in summary.warnings)


def _table(caption: str, head: list[str], rows: list[list[str]]) -> str:
    def cell(text: str) -> str:
        numeric = text.replace(".", "").replace("%", "").replace("/", "").isdigit()
        return f"<td>{escape(text)}</td>" if numeric else f'<td class="text">{escape(text)}</td>'

    cells = "".join("<tr>" + "".join(cell(c) for c in row) + "</tr>" for row in rows)
    return (f"<table><caption>{escape(caption)}</caption><tr>"
            + "".join(f"<th>{escape(h)}</th>" for h in head) + f"</tr>{cells}</table>")


def _category_table(summary: TraceSummary) -> str:
    rows = [[c, f"{summary.categories_s[c]:.3f}", f"{100 * summary.shares[c]:.1f}%"] for c in COLUMNS]
    rows.append(["wall", f"{summary.wall_s:.3f}", "100%"])
    rows.append(["planner tokens in/out", f"{summary.planner_input_tokens}/{summary.planner_output_tokens}", ""])
    rows.append(["executor forwards / tokens per forward", str(summary.executor_forward_passes),
                 f"{summary.tokens_per_forward:.2f}"])
    return _table("Time by category (s)", ["category", "seconds", "share"], rows)


def _tools_table(summary: TraceSummary) -> str:
    rows = [[name, f"{seconds:.3f}"] for name, seconds in summary.tools_detail_s.items()]
    return _table("Tools time (s)", ["tool", "seconds"], rows)


def _iteration_table(summary: TraceSummary) -> str:
    rows = [[str(it.number), f"{it.wall_s:.3f}", *(f"{it.categories_s[c]:.3f}" for c in COLUMNS),
             "; ".join(it.plan)] for it in summary.iterations]
    return _table("Iterations (s)", ["#", "wall", *COLUMNS, "plan"], rows)
