"""`agentpair bench sites` without a model: every family's site driven over plain HTTP (httpx) doing what
each task asks (judged a success) and doing it to a look-alike, twice, or not at all (judged a failure);
every page of every drawn site answers; a question's values are on the site's pages; the split is fixed."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest

from agentpair.bench.sites import DEV_FAMILIES, DEV_SEEDS, REPORT_FAMILIES, REPORT_SEEDS, SPLITS
from agentpair.bench.sites.base import Action, Case, serve
from agentpair.bench.sites.judge import grounded, judge
from agentpair.bench.sites.run import draw, family_names

ALL = {**DEV_FAMILIES, **REPORT_FAMILIES}
CASES = [(f, t, s) for f, templates in ALL.items() for t in templates for s in (0, 1, 100)]
LINK = re.compile(r'href="(/[^"]*)"|<form method="get" action="(/[^"]*)"')


def do(client: httpx.Client, case: Case, action: Action) -> None:
    """Perform `action` on the site as its forms would (each family's POSTs)."""
    site, f, item = case.site, action.fields, action.item
    post = lambda path, **data: client.post(path, data=data)  # noqa: E731 - a table of one-liners
    match action.verb:
        case "order":
            post(f"/p/{item}", colour=f["colour"], size=f["size"], qty=f["qty"])
            post("/checkout", name=f["name"], street="1 High Street", city="Kendal", postcode=f["postcode"])
        case "remove":
            post(f"/cart/remove/{[line['pid'] for line in site.cart].index(item)}", confirm="yes")
        case "apply":
            post(f"/job/{item}/apply", name=f["name"], email=f["email"], note="hello")
        case "withdraw" | "cancel":
            post(f"/{action.verb}/{item}", confirm="yes")
        case "book":
            post(f"/slot/{item}", patient=f["patient"], reason="Follow-up")
        case "deactivate":
            post(f"/user/{item}/deactivate", confirm="yes")
        case "update" if item.startswith("u"):
            post(f"/user/{item}/edit", role=f["role"], team=f["team"])
        case "update":
            post(f"/ticket/{item}", status=f["status"], assignee=f["assignee"], reply="Sorted.")
        case "lock":
            post(f"/thread/{item}/lock", confirm="yes")
        case "hide":
            n = next(n for n, p in enumerate(site.threads[item]["posts"]) if p["by"] == f["by"] and p["text"] == f["text"])
            post(f"/thread/{item}/hide/{n}", reason="Advertising")
        case "mark":
            k, a = item.split("/")
            post(f"/class/{k}/{a}/{site.classes[k]['pupils'].index(f['pupil'])}", mark=f["mark"])
        case "viewing":
            post(f"/home/{item}", name=f["name"], phone="07700 900000", slot=f["slot"])
        case "reply":
            post(f"/msg/{item}/reply", body="Thanks, I will be there.")
        case "delete":
            post(f"/msg/{item}/delete", confirm="yes")
        case "edit":
            post(f"/wiki/{item}/edit", **{**site.articles[item], "population": f["population"]})
        case "tickets":
            post(f"/event/{item}", type=f["type"], qty=f["qty"], name=f["name"], email="a@b.test")
            post("/review")
        case "stage":
            post(f"/deal/{item}", stage=f["stage"])
        case "note":
            post(f"/contact/{item}", kind=f["kind"], summary="Agreed to send a revised quote.")


def look_alike(case: Case, action: Action) -> Action:
    """The same action on the item the target is most easily taken for (or with one value changed)."""
    site = case.site
    if action.verb == "hide":
        other = next(p for p in site.threads[action.item]["posts"][1:] if p["by"] != action.fields["by"])
        return action.model_copy(update={"fields": {"by": other["by"], "text": other["text"]}})
    if action.verb == "mark":
        other = next(p for p in site.classes[action.item.split("/")[0]]["pupils"] if p != action.fields["pupil"])
        return action.model_copy(update={"fields": {**action.fields, "pupil": other}})
    pool = {"order": site.__dict__.get("products"), "apply": site.__dict__.get("jobs"),
            "withdraw": site.__dict__.get("applied"), "cancel": site.__dict__.get("booked"),
            "remove": [line["pid"] for line in site.__dict__.get("cart", [])], "book": site.__dict__.get("slots"),
            "deactivate": site.__dict__.get("users"), "update": site.__dict__.get("users") or site.__dict__.get("tickets"),
            "lock": site.__dict__.get("threads"), "viewing": site.__dict__.get("homes"),
            "reply": site.__dict__.get("messages"), "delete": site.__dict__.get("messages"),
            "edit": site.__dict__.get("articles"), "tickets": site.__dict__.get("events"),
            "stage": site.__dict__.get("deals"), "note": site.__dict__.get("contacts")}[action.verb]
    item = next(k for k in pool if k != action.item)
    if action.verb == "order":  # the look-alike's own colour and size
        p = site.products[item]
        return action.model_copy(update={"item": item, "fields": {**action.fields, "colour": p["colours"][0],
                                                                   "size": p["sizes"][0]}})
    return action.model_copy(update={"item": item})


def crawl(client: httpx.Client, limit: int = 400) -> dict[str, str]:
    """Every page reachable from the home page by links and by GET forms sent empty, by path."""
    seen: dict[str, str] = {}
    todo = ["/"]
    while todo and len(seen) < limit:
        path = todo.pop()
        if path in seen:
            continue
        reply = client.get(path)
        assert reply.status_code == 200, f"{path}: {reply.status_code}"
        seen[path] = reply.text
        todo += [(href or action).replace("&amp;", "&") for href, action in LINK.findall(reply.text)]
    return seen


def text(page: str) -> str:
    return re.sub(r"<[^>]+>", " ", page).replace("&amp;", "&").replace("&#x27;", "'")


def test_the_split_is_fixed_and_disjoint() -> None:
    assert set(DEV_FAMILIES).isdisjoint(REPORT_FAMILIES) and len(REPORT_FAMILIES) >= 4 and len(DEV_FAMILIES) >= 4
    assert DEV_SEEDS == (0, 1, 2, 3, 4) and REPORT_SEEDS == (100, 101, 102)
    assert all(2 <= len(templates) <= 4 for templates in ALL.values())
    assert family_names("dev", None) == list(DEV_FAMILIES)
    with pytest.raises(Exception, match="no family forum in the dev split"):
        family_names("dev", "shop,forum")


@pytest.mark.parametrize("family", list(ALL))
def test_a_case_is_the_same_for_a_seed_and_differs_across_seeds(family: str) -> None:
    for task in ALL[family]:
        goals = [draw(family, task, seed).goal for seed in (0, 0, 1, 2, 100)]
        assert goals[0] == goals[1] and len(set(goals[1:])) >= 3, goals


@pytest.mark.parametrize(("family", "task", "seed"), CASES)
def test_the_right_action_succeeds_and_a_look_alike_twice_or_none_fails(family: str, task: str, seed: int) -> None:
    case = draw(family, task, seed)
    with serve(case.site) as base, httpx.Client(base_url=base, follow_redirects=True) as client:
        pages = crawl(client)  # every page answers before anything is done
        if case.expect.answer is not None:
            seen = [text(p) for p in pages.values()]
            right = "; ".join(str(v) for v in case.expect.answer)
            assert not judge(case.expect, case.site.actions, right) and grounded(right, seen)
            assert judge(case.expect, case.site.actions, "I could not find it")
            assert not grounded("It is 987654 and Zanzibar", seen)
            return
        assert judge(case.expect, [], None)  # nothing done
        [action] = case.expect.actions
        wrong = look_alike(case, action)
        do(client, case, wrong)
        assert case.site.actions, f"the look-alike {wrong} was not recorded"
        assert judge(case.expect, case.site.actions, None)
        case.site.actions.clear()
        do(client, case, action)
        assert not judge(case.expect, case.site.actions, None), case.site.actions
        crawl(client)  # and every page still answers after it


@pytest.mark.parametrize(("path", "data", "family", "task"), [
    ("/checkout", {"name": "A", "street": "", "city": "B", "postcode": "C"}, "shop", "buy"),
    ("/job/{item}/apply", {"name": "A", "email": "not-an-email"}, "jobs", "apply"),
    ("/slot/{item}", {"patient": "A", "reason": "Choose a reason"}, "clinic", "book"),
    ("/thread/{item}/hide/1", {"reason": ""}, "forum", "hide-post"),
    ("/ticket/{item}", {"status": "Solved", "assignee": "Unassigned", "reply": ""}, "helpdesk", "solve"),
    ("/home/{item}", {"name": "A", "phone": "call me", "slot": "Friday 17:30"}, "lettings", "viewing"),
    ("/msg/{item}/reply", {"body": "  "}, "mail", "reply"),
    ("/wiki/{item}/edit", {"population": "about 900"}, "wiki", "fix-population"),
    ("/event/{item}", {"type": "Standard", "qty": "7", "name": "A", "email": "a@b.test"}, "events", "buy-tickets"),
    ("/contact/{item}", {"kind": "Call", "summary": ""}, "crm", "log-call"),
])
def test_a_form_with_an_invalid_value_says_why_and_records_nothing(path: str, data: dict, family: str, task: str) -> None:
    case = draw(family, task, 0)
    item = case.expect.actions[0].item
    with serve(case.site) as base, httpx.Client(base_url=base, follow_redirects=True) as client:
        reply = client.post(path.format(item=item), data=data)
    assert 'role="alert"' in reply.text and not case.site.actions


def test_a_mark_above_the_maximum_is_refused() -> None:
    case = draw("gradebook", "enter-mark", 1)
    k, a = case.expect.actions[0].item.split("/")
    with serve(case.site) as base, httpx.Client(base_url=base) as client:
        reply = client.post(f"/class/{k}/{a}/0", data={"mark": str(case.site.classes[k]["work"][a]["max"] + 1)})
    assert "Enter a mark from 0 to" in reply.text and not case.site.actions


def test_a_confirmation_page_alone_changes_nothing() -> None:
    case = draw("accounts", "deactivate", 2)
    with serve(case.site) as base, httpx.Client(base_url=base) as client:
        page = client.get(f"/user/{case.site.target}/deactivate").text
        client.post(f"/user/{case.site.target}/deactivate", data={})  # no confirm=yes
    assert "Please confirm" in page and not case.site.actions


@pytest.mark.parametrize(("answer", "values", "ok"), [
    ("It costs £1,250.00 a month", [1250.0], True), ("1250", [1250.0], True), ("1205", [1250.0], False),
    ({"team": "FINANCE", "last": "3 May 2025"}, ["Finance", "3 May 2025"], True),
    ("Finance", ["Finance", "3 May 2025"], False), (None, [12.0], False),
    ("Lily Evanson, 38", ["Lily Evans", 38.0], False), ("lily evans (38 of 40)", ["Lily Evans", 38.0], True),
])
def test_answers_are_judged_leniently_on_format_but_not_on_values(answer, values, ok) -> None:
    from agentpair.bench.sites.base import Expect

    assert (judge(Expect(answer=values), [], answer) == []) is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("£1,250 pcm", True), ('{"rent": 1250, "deposit": 1442}', True), ({"rent": 1250, "deposit": 1500}, False),
    ("The rent is 1250 and the deposit 1442", True), ("Jesmond", True), ("Heaton", False),
])
def test_an_answer_is_grounded_when_every_value_is_on_a_page_seen(answer, ok: bool) -> None:
    assert grounded(answer, ["Rent £1,250 pcm Deposit £1,442", "Flat 2, 9 Cromwell Road, Jesmond"]) is ok


def test_every_split_has_its_templates_and_an_unknown_family_is_a_usage_error() -> None:
    assert set(SPLITS) == {"dev", "report"}
    out = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "sites", "--split", "report",
                          "--families", "shop"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "no family shop in the report split" in out.stderr



def test_the_totals_count_every_run_and_the_table_shows_them(capsys) -> None:
    from agentpair.bench.sites.run import SiteRun, _print_table, aggregate

    def run(family: str, task: str, success: bool, grounded: bool | None) -> SiteRun:
        return SiteRun(family=family, task=task, seed=0, goal="g", success=success, steps=4, wall_s=2.0,
                       planner_calls=3, question=grounded is not None, grounded=grounded, stop_reason="finished",
                       reasons=[])

    runs = [run("shop", "buy", True, None), run("shop", "ask-specs", False, True), run("jobs", "apply", False, None),
            run("jobs", "ask-salary", True, False)]
    report = aggregate(runs)
    assert report["success_rate"] == 0.5 and report["answers"] == 2 and report["answer_grounded_pct"] == 50.0
    assert report["per_family"]["jobs"]["answer_grounded_pct"] == 0.0 and report["per_task"]["shop/buy"]["runs"] == 1
    _print_table({**report, "split": "dev", "planner": "p", "seeds": [0]})
    out = capsys.readouterr().out
    assert "shop/ask-specs" in out and "50%" in out and "all" in out
