"""A template the page shows: found in the page's text with its lines, and given holes to fill."""

from __future__ import annotations

from agentpair.models import Step
from agentpair.agent.code_holes import code_values, labelled_holes, shown_template, with_holes
from agentpair.agent.step_work import fill_requests
from agentpair.tools.base import Observation, Toolbox

SHOWN = """[worker]
name = "<name>"
image = "hub.local/<name>:<version>"
replicas = <replicas>

[worker.net]
port = <port>
probe = "/ping"
"""
PAGE = ("New worker\nFill in the placeholders of this template and paste it below.\n"
        "Template\n" + SHOWN + "Worker spec\nStart worker")


def test_the_shown_template_is_the_placeholder_block_with_its_code_lines_around() -> None:
    assert shown_template(PAGE) == SHOWN
    assert shown_template("Start from this template:\nNAME=<name>\nPORT=<port>\nCreate") == "NAME=<name>\nPORT=<port>\n"
    assert shown_template("A page with no template.\nkey = value") is None
    assert shown_template("Run git clone <url> to get the code.\nThen start it.") is None  # a sentence
    assert shown_template("Replace <name> in the file below.\nNAME=<name>\nPORT=<port>") == "NAME=<name>\nPORT=<port>\n"
    assert shown_template("docker run -p <port>:80 <image>") == "docker run -p <port>:80 <image>\n"
    assert shown_template("Set PORT=<port> before you start.") == "Set PORT=<port> before you start.\n"  # code in it


def test_placeholders_become_holes_sized_as_the_planner_sized_them_and_each_filled_once() -> None:
    holes = with_holes(SHOWN, 'name = "{{name:16}}"\nport = {{port:6}}')
    assert 'name = "{{name:16}}"' in holes and "hub.local/{{name_2:16}}:{{version}}" in holes
    assert "replicas = {{replicas}}" in holes and "port = {{port:6}}" in holes
    assert 'probe = "/ping"' in holes  # what the template fixes stays as it is


def test_a_code_step_fills_the_template_the_page_shows_not_the_planners_copy() -> None:
    step = Step(kind="code", instruction="name ledger-api, version 2.4.1", template="[name = {{name:16}}, version 2.4.1")
    shown = fill_requests(step, "ctx", Observation(text=PAGE), Toolbox([]))
    assert shown[0].template == with_holes(SHOWN, step.template)
    plain = fill_requests(step, "ctx", Observation(text="No template here."), Toolbox([]))
    assert plain[0].template == step.template


def test_a_hole_the_instruction_labels_takes_the_word_beside_its_name() -> None:
    holes = with_holes(SHOWN)
    allowed = labelled_holes(holes, "write the worker: name ledger-api, version 2.4.1, 3 replicas, HTTP port 8080")
    assert allowed["/name"] == allowed["/name_2"] == ["ledger-api"]
    assert allowed["/version"] == ["2.4.1"] and allowed["/replicas"] == ["3"]  # before its name, in its own part
    assert allowed["/port"] == ["8080", "HTTP"]  # the executor picks between them
    assert labelled_holes("SELECT {{column:8}} FROM {{table:8}};", "get the price of Ada") == {}  # unlabelled: free


def test_the_executor_is_offered_the_labelled_words_else_the_instructions_words_and_the_pages_values() -> None:
    step = Step(kind="code", instruction="name ledger-api, version 2.4.1", template="{{name:16}}")
    [request] = fill_requests(step, "ctx", Observation(text=PAGE), Toolbox([]))
    assert request.allowed["/version"] == ["2.4.1"]
    assert "ledger-api" in request.allowed["/replicas"]  # unlabelled: any run of the instruction's words
    sql = "SELECT {{column:8}} FROM {{table:8}} WHERE name = '{{name:12}}';"
    page = Observation(url="http://komu.test/admin/orders?sort=new", title="Orders - Komu admin",
                       snapshot='- cell "Crimson mug" [ref=e1]\n- cell "$1,204.50" [ref=e2]')
    allowed = code_values(page, sql, "Write SQL to get the total of Crimson mug from orders")
    for hole, value in (("column", "total"), ("table", "orders"), ("name", "Crimson mug")):
        assert value in allowed["/" + hole]
    assert {"1204.50", "http://komu.test/admin/orders?sort=new", "/admin/orders?sort=new", "Komu admin"} <= set(allowed["/name"])


def test_a_labelled_hole_skips_the_words_that_only_link_a_name_to_its_value() -> None:
    allowed = labelled_holes("port = {{port}}\nreplicas = {{replicas}}", "Set the port to 8080 and replicas to 3")
    assert allowed == {"/port": ["8080"], "/replicas": ["3"]}
    assert with_holes("<port> <port> <port_2>") == "{{port}} {{port_2}} {{port_2_2}}"  # every hole its own name


def test_holes_the_instruction_leaves_unlabelled_take_the_values_the_goal_labels() -> None:
    step = Step(kind="code", instruction="copy the template into the Worker spec box", template="{{name:16}}")
    goal = "Start a worker from the template: name pier-sync, version 1.9.0, 2 replicas, port 7070."
    [request] = fill_requests(step, "ctx", Observation(text=PAGE), Toolbox([]), goal=goal)
    assert (request.allowed["/name"], request.allowed["/version"], request.allowed["/port"]) == (
        ["pier-sync"], ["1.9.0"], ["7070"])
    labelled = Step(kind="code", instruction="name ledger-api", template="{{name:16}}")
    assert fill_requests(labelled, "ctx", Observation(text=PAGE), Toolbox([]), goal=goal)[0].allowed["/name"] == ["ledger-api"]
