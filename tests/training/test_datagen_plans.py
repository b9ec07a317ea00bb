"""The planner data generator: determinism, the held-out split's unseen sites and values, valid
targets, and examples whose messages are exactly what the planner is sent at run time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from agentpair.bench.planner import plan_correct
from agentpair.training.datagen.plans import FAMILIES, HELDOUT_FAMILIES, build, episodes
from agentpair.training.datagen.sites import Episode
from agentpair.training.datagen.vocab import VOCABS
from agentpair.models import Plan
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.planner.request import PlanRequest, plan_schema
from agentpair.planner.client import plan_messages

SHARED = {"{{secret:password}}", "Password", "price_usd", "uncheck"}  # the same on every site
TOOLS = ["goto", "click", "type", "select", "check", "press", "scroll", "go_back", "wait_for", "read"]


def _calls(split: str, n: int) -> list[tuple[Episode, int]]:
    return episodes(split, n)


def _text(chosen: list[tuple[Episode, int]]) -> str:
    """Everything the examples of these episodes are made of: goals, pages, plans, what ran."""
    parts = []
    for episode, take in chosen:
        parts.append(episode.goal)
        for call in episode.calls[:take]:
            parts += [call.screen.html, json.dumps(call.plan(), ensure_ascii=False)]
            parts += [json.dumps(m.args, ensure_ascii=False) + str(m.error) for m in call.records()]
    return "\n".join(parts)


def test_episodes_are_deterministic_and_families_share_the_calls() -> None:
    first, again = _calls("train", 70), _calls("train", 70)
    assert _text(first) == _text(again)
    assert _text(episodes("train", 70, seed=5)) != _text(first)
    per_family = {f: sum(t for e, t in first if e.family == f) for f in FAMILIES if f not in HELDOUT_FAMILIES}
    assert sum(per_family.values()) == 70 and set(per_family.values()) == {7}
    heldout = {e.family for e, _ in _calls("heldout", 44)}
    assert HELDOUT_FAMILIES <= heldout and not HELDOUT_FAMILIES & {e.family for e, _ in first}  # a family never trained on


def test_no_heldout_site_name_label_or_value_occurs_in_the_train_split() -> None:
    heldout = _calls("heldout", 150)
    strings = {e.site for e, _ in heldout} | set(VOCABS["heldout"].pools["site"])
    for episode, take in heldout:
        for call in episode.calls[:take]:
            strings |= {v for m in call.moves for v in m.values if re.search("[A-Za-z]", v)}
    strings -= SHARED
    train = _text(_calls("train", 1200))
    leaks = {s for s in strings if s in train and re.search(rf"(?<!\w){re.escape(s)}(?!\w)", train)}
    assert not leaks
    assert len(strings) > 200


@pytest.mark.parametrize("split", ["train", "heldout"])
def test_every_target_is_a_valid_plan_and_its_own_reference_scores_correct(split: str) -> None:
    for episode, take in _calls(split, 210):
        schema = plan_schema(TOOLS, episode.output_schema)
        for call in episode.calls[:take]:
            plan = call.plan()
            jsonschema.validate(plan, schema)
            Plan.model_validate(plan)
            assert plan_correct(plan, plan, [m.values for m in call.moves])
            assert "{{secret:" not in plan["thought"]
            assert not any(v in json.dumps(plan) for v in episode.secrets.values())


def test_a_rendered_split_holds_run_time_requests(tmp_path: Path) -> None:
    paths = build(tmp_path, {"train": 14, "heldout": 7})
    rows = [json.loads(line) for path in paths.values() for line in path.read_text().splitlines()]
    assert len(rows) == 21 and {r["split"] for r in rows} == {"train", "heldout"}
    for row in rows:
        request = PlanRequest.model_validate(row["request"])
        assert row["messages"] == plan_messages(request)
        assert json.loads(row["target"]) == row["reference"]
        jsonschema.validate(row["reference"], grounded_plan_schema(request))  # what the embedded planner answers under
        assert "[ref=" not in request.page and "/url:" not in request.page and len(request.page) <= 700
        for line in request.history:
            assert re.match(r"^\[\d+\] (act \w+|extract|code): .+ -> (ok|FAILED: .+)$", line)
        if row["call"] > 1:
            assert request.history
    again = build(tmp_path, {"heldout": 7})  # from the page cache: the same file
    assert again["heldout"].read_text() == paths["heldout"].read_text()


def test_only_training_sites_carry_the_extra_chrome() -> None:
    def pages(split: str) -> list[str]:
        return [call.screen.html for episode, take in _calls(split, 140) for call in episode.calls[:take]]
    train, heldout = pages("train"), pages("heldout")
    assert not any("<aside>" in page or "Shopping bag (0)" in page for page in heldout)
    assert sum("<aside>" in page for page in train) > len(train) / 4
    assert any(re.search(r"<nav>.*>Sign in</a>.*</nav>", page) for page in train)  # a second way in


def test_only_training_goals_go_on_past_the_page_they_name() -> None:
    """A second stage (reply or setting) and a partial extraction to repair are training-only."""
    def thoughts(split: str) -> list[list[str]]:
        return [[call.thought for call in episode.calls] for episode, _ in _calls(split, 600)]
    train, heldout = thoughts("train"), thoughts("heldout")
    staged = [t for t in train if "Write the reply and send it." in t or any(x.startswith("Set ") for x in t)]
    repaired = [t for t in train if any(x.startswith("The extraction missed") for x in t)]
    assert staged and repaired
    assert all(t[-1] == "The goal is done." and t.index("The goal is done.") == len(t) - 1 for t in staged)
    assert not any("Write the reply and send it." in t or any(x.startswith(("Set ", "The extraction missed"))
                                                              for x in t) for t in heldout)


def test_only_training_episodes_vary_page_names_buttons_and_results() -> None:
    """Shapes real sites have that the held-out split keeps out, so it stays as it was: add buttons
    named by aria-label, a result that holds the target's name in its own, page names from the
    wider vocabulary, registrations with radio buttons and a second dropdown (filled in over two
    calls where one plan cannot hold them), a setting asked for with its page only hinted at."""
    def seen(split: str) -> tuple[str, list[str]]:
        chosen = _calls(split, 700)
        return _text(chosen), [episode.goal for episode, _ in chosen]
    (train, train_goals), (heldout, heldout_goals) = seen("train"), seen("heldout")
    shapes = [r'aria-label="Add [^"]+ to cart">Add to cart<', r">(Case for the|Guide to the|Study notes:) ",
              r">(Gardening|Cycling|Sailing|Chess|Photography)</a>", r'type="radio"', "Go on with the form"]
    assert all(re.search(shape, train) for shape in shapes)
    assert not any(re.search(shape, heldout) for shape in shapes)
    hinted = [g for g in train_goals if re.search(r"\(it is an? [\w ]+ setting\)|; it lives under ", g)]
    assert hinted and not any(re.search(r"\(it is an? [\w ]+ setting\)|; it lives under ", g) for g in heldout_goals)
