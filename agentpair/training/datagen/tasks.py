"""Training examples from one rendered page: tool calls (click, type, select, check, target,
goto, scroll, press, read), extractions (with fields absent from the page as "") and code templates."""

from __future__ import annotations

import json
import random
from typing import Any

from agentpair.training.datagen.pages import El, Page, code, person
from agentpair.training.datagen.pages_bulk import bulk_example
from agentpair.training.datagen.pages_long_forms import long_form_example
from agentpair.training.datagen.vocab import Vocab
from agentpair.models import Task
from agentpair.agent.code_holes import code_values
from agentpair.agent.rows import bulk_values
from agentpair.agent.form_fill import form_fill
from agentpair.agent.step_work import TARGET_SCHEMA, allowed_values, page_values
from agentpair.agent.render import executor_context
from agentpair.tools.base import Observation
from agentpair.tools.browser_actions import (CheckArgs, ClickArgs, GotoArgs, PressArgs, ReadArgs, ScrollArgs,
                                   SelectArgs, TypeArgs)

SCHEMAS = {name: model.model_json_schema() for name, model in (
    ("click", ClickArgs), ("type", TypeArgs), ("select", SelectArgs), ("check", CheckArgs),
    ("goto", GotoArgs), ("scroll", ScrollArgs), ("press", PressArgs), ("read", ReadArgs))}
SCHEMAS["target"] = TARGET_SCHEMA
MISSING_KEYS = ["discount_code", "sku", "fax", "warranty", "email", "coupon", "isbn",
                "tracking_number", "manager", "vat_id"]
# each list ends with the embedded planner's own phrasing (datagen/sites.py), which the
# executor reads at run time: `phrasing` picks it half the time
PLANNER_SHARE = 0.5
BULK_DRAWS = 2  # bulk extractions per bulk page
VALUE_DRAWS = 2  # steps per field that takes a value: finding where the value ends is what failed at run time
CLICK = ["Click the '{l}' {k}", "Click {l}", "Click on \"{l}\"", "Press the {l} {k}",
         "Hit {l}", "Tap '{l}'", "Activate the {l} {k}", "Choose {l}", "click the {l} {k}"]
TYPE = ["Type '{v}' into the {l} field", "Enter {v} as {l}", "Fill in {l} with {v}",
        "Put \"{v}\" in the {l} box", "Set {l} to {v}", "Write {v} in {l}",
        "In the {l} input, type {v}", "type {v} into the {l} {b}"]
PASSWORD = ["Enter the password", "Type the password into the Password field", "Fill in the password",
            "type {{{{secret:password}}}} into the {l} field"]
SELECT = ["Choose {o} in {l}", "Select '{o}' from the {l} dropdown", "Set {l} to {o}",
          "Pick {o} as the {l}", "Change {l} to \"{o}\"", "select {o} in the {l} dropdown"]
CHECK_ON = ["Tick {l}", "Enable {l}", "Turn on {l}", "Check the {l} box", "Switch {l} on", "check the {l} box"]
CHECK_OFF = ["Untick {l}", "Disable {l}", "Turn off {l}", "Uncheck the {l} box", "Switch {l} off",
             "uncheck the {l} box"]
TARGET = ["the {l} {k}", "{l} {k}", "the '{l}' {k}", "{l}"]
SUBMIT = [" and press Enter", " and submit", ", then hit Enter"]
READ_PAGE = ["Read the page", "Read the whole page", "Read all the text on this page",
             "Get the page's text", "Read what the page says"]
READ_ONE = ["Read the {l} {k}", "Read the value of {l}", "What does the {l} {k} say?",
            "Get the text of the '{l}' {k}"]
EMPTY_NOTE = ["(empty if not shown)", "(\"\" if missing)", "(leave empty when absent)"]


def _kind_word(e: El) -> str:
    return {"link": "link", "button": "button", "select": "dropdown", "checkbox": "checkbox",
            "searchbox": "search box"}.get(e.kind, "field")


def phrasing(rng: random.Random, options: list[str]) -> str:
    """One wording of an act: the planner's own (the list's last) with PLANNER_SHARE, else another.
    The executor reads the planner's wording at run time; as one wording of four to nine it was
    too rare to learn where a value ends ("type {{secret:password}} into the Password field" ->
    "Password")."""
    return options[-1] if rng.random() < PLANNER_SHARE else rng.choice(options[:-1])


def _text_for(rng: random.Random, e: El, page: Page, vocab: Vocab) -> str:
    l = e.label.lower()
    first, last = person(rng, vocab).split()
    if "email" in l:
        return f"{first.lower()}.{last.lower()}@{page.site.lower()}.com"
    if "phone" in l or "mobile" in l:
        return f"{rng.randint(200, 999)}-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"
    if "name" in l or "person" in l or "recipient" in l:
        return f"{first} {last}"
    if any(w in l for w in ("code", "number", "id", "reference")):
        return code(rng, rng.randint(5, 8))
    if e.kind == "searchbox":
        return str(page.facts.get("query", vocab.one(rng, "topic")))
    words = [page.site, first, last, str(rng.randint(1, 99)), code(rng, 4).lower(),
             rng.choice(["great", "thanks", "see you", "ok", "hello"])]
    return " ".join(rng.sample(words, rng.randint(1, 3)))


def _tool(tool: str, instruction: str, target: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "tool_args", "tool": tool, "instruction": instruction,
            "schema": SCHEMAS[tool], "target": target}


def _value_step(rng: random.Random, e: El, ref: str, page: Page, vocab: Vocab) -> dict[str, Any]:
    """A step that names the value to type or pick into one field."""
    l = e.label
    if e.kind == "password":
        ins = phrasing(rng, PASSWORD).format(l=l)
        return _tool("type", ins, {"ref": ref, "text": "{{secret:password}}", "submit": False})
    if e.kind == "select":
        o = rng.choice(e.options)
        return _tool("select", phrasing(rng, SELECT).format(o=o, l=l), {"ref": ref, "option": o})
    v, submit = _text_for(rng, e, page, vocab), rng.random() < (0.6 if e.kind == "searchbox" else 0.2)
    wording = phrasing(rng, TYPE)
    tail = (" and press Enter" if wording == TYPE[-1] else rng.choice(SUBMIT)) if submit else ""
    ins = wording.format(v=v, l=l, b="box" if e.kind == "searchbox" else "field") + tail
    if e.kind == "searchbox" and rng.random() < 0.5:
        ins = f"Search for {v}" + (rng.choice(SUBMIT) if submit else " without submitting")
    return _tool("type", ins, {"ref": ref, "text": v, "submit": submit})


def act_examples(rng: random.Random, page: Page, refs: dict[str, str], vocab: Vocab) -> list[dict[str, Any]]:
    out = []
    for e in page.elements:
        ref, l, k = refs.get(e.key), e.label, _kind_word(e)
        if ref is None:
            continue
        if e.kind in ("link", "button"):
            if rng.random() < 0.3:
                continue
            out.append(_tool("click", phrasing(rng, CLICK).format(l=l, k=k), {"ref": ref}))
        elif e.kind in ("password", "textbox", "searchbox", "select"):
            out += [_value_step(rng, e, ref, page, vocab) for _ in range(VALUE_DRAWS)]
        elif e.kind == "checkbox":
            on = rng.random() < 0.5
            out.append(_tool("check", phrasing(rng, CHECK_ON if on else CHECK_OFF).format(l=l),
                             {"ref": ref, "on": on}))
        if rng.random() < 0.35:
            desc = rng.choice(TARGET).format(l=l, k=k)
            out.append(_tool("target", f"the element: {desc}", {"ref": ref}))
        if e.kind == "link" and rng.random() < 0.25:
            ins = rng.choice(["Open the page the '{l}' link points to",
                              "Go directly to the URL of the {l} link", "Navigate to {h}"])
            out.append(_tool("goto", ins.format(l=l, h=e.href), {"url": e.href}))
    if rng.random() < 0.3:
        d = rng.choice(["down", "up", "top", "bottom"])
        ins = {"down": "Scroll down a bit", "up": "Scroll back up", "top": "Scroll to the top",
               "bottom": "Scroll to the bottom of the page"}[d]
        out.append(_tool("scroll", ins, {"direction": d}))
    if rng.random() < 0.2:
        key = rng.choice(["Enter", "Escape", "Tab", "Control+A", "PageDown"])
        out.append(_tool("press", f"Press {key}", {"key": key}))
    return out


def read_examples(page: Page, refs: dict[str, str]) -> list[dict[str, Any]]:
    """`read` calls: the whole page (ref "", as the tool allows) or one element. Drawn from a
    generator of their own, so the other examples of the page stay as they were."""
    rng = random.Random(page.html)
    out = [_tool("read", rng.choice(READ_PAGE), {"ref": ""})] if rng.random() < 0.3 else []
    named = [e for e in page.elements if e.key in refs and e.kind in ("textbox", "select", "link")]
    if named and rng.random() < 0.3:
        e = rng.choice(named)
        out.append(_tool("read", rng.choice(READ_ONE).format(l=e.label, k=_kind_word(e)), {"ref": refs[e.key]}))
    return out


def _field_schema(value: Any, rng: random.Random) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        if 1 <= value <= 5 and rng.random() < 0.5:
            return {"type": "integer", "minimum": 1, "maximum": 5}
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    return {"type": "string"} if rng.random() < 0.7 else {"type": "string", "maxLength": 60}


def _extract(rng: random.Random, what: str, fields: dict[str, Any], page: Page) -> dict[str, Any]:
    keys = rng.sample(list(fields), rng.randint(1, len(fields)))
    target = {k: fields[k] for k in keys}
    missing = rng.random() < 0.3
    if missing:  # a field the page does not show under any label ("warranty" is shown on a spec sheet)
        key = rng.choice([k for k in MISSING_KEYS if k.replace("_", " ") not in page.html.lower()])
        target[key] = ""
    props = {k: _field_schema(v, rng) for k, v in target.items()}
    names = ", ".join(k.replace("_", " ") for k in target)
    ins = rng.choice(["Extract the {n} of {w}", "Get {w}'s {n}", "What are the {n} of {w}?",
                      "Read the {n} for {w}", "Return the {n} of {w}"]).format(n=names, w=what)
    if missing:
        ins += " " + rng.choice(EMPTY_NOTE)
    schema = {"type": "object", "properties": props, "required": list(props)}
    return {"kind": "extract", "instruction": ins, "schema": schema, "target": target}


def extract_examples(rng: random.Random, page: Page) -> list[dict[str, Any]]:
    out = []
    for rec in rng.sample(page.records, min(len(page.records), 3)):
        name_key = "name" if "name" in rec else "title"
        fields = {k.lower().replace(" ", "_"): v for k, v in rec.items() if k != name_key}
        out.append(_extract(rng, rec[name_key], fields, page))
    facts = {k: v for k, v in page.facts.items() if not isinstance(v, list)}
    if facts:
        out.append(_extract(rng, "this page", facts, page))
    checks = [e for e in page.elements if e.kind == "checkbox"]
    if checks and page.family == "settings":
        e = rng.choice(checks)
        key = e.label.lower().replace(" ", "_").replace("-", "_")
        out.append({"kind": "extract", "instruction": f"Is {e.label} turned on?",
                    "schema": {"type": "object", "properties": {key: {"type": "boolean"}},
                               "required": [key]}, "target": {key: e.checked}})
    return out


def _code(instruction: str, template: str, holes: dict[str, str]) -> dict[str, Any]:
    return {"kind": "code", "instruction": instruction, "template": template, "target": holes}


def code_examples(rng: random.Random, page: Page, url: str, vocab: Vocab) -> list[dict[str, Any]]:
    out = []
    if page.family == "table":
        rec, col = rng.choice(page.records), rng.choice(page.facts["columns"])
        table = page.facts["table"]
        out.append(_code(f"Write SQL to get the {col.lower()} of {rec['name']} from {table}",
                         "SELECT {{column:8}} FROM {{table:8}} WHERE name = '{{name:12}}';",
                         {"column": col.lower(), "table": table, "name": rec["name"]}))
    priced = [r for r in page.records if "price" in r]
    if priced:
        rec, qty = rng.choice(priced), rng.randint(2, 12)
        name = rec.get("name") or rec["title"]
        out.append(_code(f"Compute the cost of {qty} x {name} in Python",
                         "total = {{price:8}} * {{qty:4}}\nprint(round(total, 2))",
                         {"price": f"{rec['price']:.2f}", "qty": str(qty)}))
    fields = [e for e in page.elements if e.kind in ("textbox", "searchbox")]
    if fields:
        e = rng.choice(fields)
        text = _text_for(rng, e, page, vocab)
        out.append(_code(f"With JavaScript, set the {e.label} field to {text}",
                         "document.querySelector('[aria-label=\"{{label:12}}\"]').value = "
                         "\"{{text:16}}\";", {"label": e.label, "text": text}))
    retries = rng.randint(1, 9)
    out.append(_code(f"Write the crawler config for this page with {retries} retries",
                     "site: {{site:8}}\npath: {{path:16}}\nretries: {{retries:3}}\n",
                     {"site": page.site, "path": page.path, "retries": str(retries)}))
    if rng.random() < 0.5:
        out.append(_code("Fetch the current page with requests", "import requests\n"
                         "r = requests.get(\"{{url:32}}\", timeout=10)", {"url": url}))
    return out


def page_examples(rng: random.Random, page: Page, obs: Observation, refs: dict[str, str],
                  vocab: Vocab) -> list[dict[str, Any]]:
    """Every example for one rendered page, each with the executor context it will see."""
    memory = [{"order": code(rng, 6)}] if rng.random() < 0.15 else None
    task = Task(goal=page.goal, start_url=obs.url, secrets=page.secrets)
    context = executor_context(task, obs, memory)
    if page.family == "bulk":  # every record into an array of objects, twice with other fields
        out = act_examples(rng, page, refs, vocab) + [bulk_example(rng, page) for _ in range(BULK_DRAWS)]
    elif page.family == "long_form":  # the whole form from one instruction, in other orders and words
        out = [long_form_example(rng, page) for _ in range(BULK_DRAWS)]
    else:
        out = act_examples(rng, page, refs, vocab) + extract_examples(rng, page) + \
            code_examples(rng, page, obs.url, vocab) + read_examples(page, refs)
    for ex in out:
        ex["context"] = context
        # what a run offers: the refs of the tool's roles, the instruction's words for verbatim
        # values, the page's words and numbers for extracted ones (an array of objects sized to the
        # page's rows, each row's fields its own texts), both for a code template's holes
        if page.family == "long_form":  # as a run asks for the form: form_fill over the page's fields
            ex["allowed"] = form_fill(ex["instruction"], context, obs)[0].allowed
        elif ex["kind"] == "extract":
            ex["schema"], rows, *_ = bulk_values(obs.snapshot, ex["schema"])
            ex["allowed"] = {**page_values(obs, ex["schema"], ex["instruction"]), **rows}
        else:
            ex["allowed"] = (allowed_values(obs, ex["schema"], ex["instruction"], page.secrets)
                             if ex["kind"] == "tool_args" else code_values(obs, ex["template"], ex["instruction"]))
        ex["family"] = page.family
    return out


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False)
