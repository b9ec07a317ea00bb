"""Reference sampler: token-for-token equal to LLaDA's generate.py outputs, and deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from executor_engine import Engine, FillInput, ReferenceSampler, ThresholdSampler
from executor_engine.template import compile_template
from executor_engine.testing import make_tiny_checkpoint

DATA = Path(__file__).parent.parent / "data" / "llada_reference.json"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Engine]:
    record = json.loads(DATA.read_text())
    d = make_tiny_checkpoint(tmp_path_factory.mktemp("ref"), record["layout"], record["seed"])
    assert json.loads((d / "config.json").read_text()) == record["config"]
    return record, Engine.load(d, device="cpu")


def test_generate_matches_llada_reference(reference: tuple[dict, Engine]) -> None:
    record, engine = reference
    for case in record["cases"]:
        torch.manual_seed(case["torch_seed"])
        am = case["attention_mask"]
        out = engine.generate(torch.tensor(case["prompt"]),
                              None if am is None else torch.tensor(am), steps=case["steps"],
                              gen_length=case["gen_length"], block_length=case["block_length"],
                              temperature=case["temperature"], remasking=case["remasking"])
        assert out.tolist() == case["output"], case


def test_fill_deterministic(engines: dict[str, Engine]) -> None:
    req = FillInput("write it", context="ctx", template="x = {{v:6}}; y = {{w:4}}")
    for sampler in (ReferenceSampler(block_length=4), ReferenceSampler(temperature=0.7, seed=3),
                    ReferenceSampler(remasking="random", steps_per_block=8),
                    ThresholdSampler(threshold=0.5, temperature=0.5)):
        a = engines["llada"].fill([req], sampler)[0]
        b = engines["llada"].fill([req], sampler)[0]
        assert a.error is None and a.value == b.value and a.nfe == b.nfe


def test_reference_tokens_per_step(engines: dict[str, Engine]) -> None:
    req = FillInput("go", template="{{a:16}}")
    one = engines["agentpair"].fill([req], ReferenceSampler(block_length=8))[0]
    assert (one.nfe, one.tokens) == (16, 16)
    four = engines["agentpair"].fill([req], ReferenceSampler(block_length=8, steps_per_block=2))[0]
    assert (four.nfe, four.tokens_per_forward) == (4, 4.0)


def test_threshold_commits_at_least_one(engines: dict[str, Engine]) -> None:
    req = FillInput("go", template="{{a:12}}")
    strict = engines["dream"].fill([req], ThresholdSampler(threshold=1.01))[0]
    assert strict.nfe == 12
    loose = engines["dream"].fill([req], ThresholdSampler(threshold=0.0))[0]
    assert loose.nfe == 1 and loose.tokens == 12


def test_a_text_slot_ends_without_a_forward_once_it_pads(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair"]
    canvas = compile_template(engine.vocab, "x = {{v:6}}", {}).canvas
    first = min(canvas.owner)
    canvas.commit(first, engine.vocab.encode("a")[0])
    canvas.commit(first + 1, engine.vocab.pad_id)
    assert canvas.commit_forced() == 4 and not canvas.masked()
    assert canvas.ids[first + 2:] == [engine.vocab.pad_id] * 4


def test_a_value_with_one_choice_costs_no_forward(engines: dict[str, Engine]) -> None:
    schema = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
    for sampler in (ThresholdSampler(), ReferenceSampler(steps_per_block=3)):
        out = engines["agentpair"].fill([FillInput("click", "ctx", schema, allowed={"/ref": ["e4"]})],
                                        sampler)[0]
        assert out.error is None and out.value == {"ref": "e4"}
        assert (out.nfe, out.tokens) == (0, 0) and out.forced >= 1


def test_a_choice_is_picked_from_its_start(engines: dict[str, Engine]) -> None:
    """Only a choice's first masked position is open to a step (a pad at its end must not cut a
    value short before its words are chosen); a text slot's positions are all open."""
    engine = engines["agentpair"]
    values = ["ab", "ab cd ef gh", "xy zw"]
    canvas = compile_template(engine.vocab, "{{t:3}} {{v}}", {"/v": values}).canvas
    text = [p for p, (slot, _) in canvas.owner.items() if type(slot).__name__ == "TextSlot"]
    choice = [p for p in canvas.owner if p not in text]
    assert canvas.open() == text + choice[:1]
    canvas.commit(choice[0], canvas.allowed([choice[0]])[0].nonzero()[0].item())
    assert canvas.open() == text + choice[1:2]
    for sampler in (ThresholdSampler(threshold=0.0), ReferenceSampler(steps_per_block=2),
                    ReferenceSampler(block_length=4)):  # schedules sized for every masked position
        out = engine.fill([FillInput("pick", "ctx", template="{{v}}", allowed={"/v": values})], sampler)[0]
        assert out.error is None and out.value in values


def test_a_choice_is_committed_whole_from_one_forward_when_one_value_is_sure(engines: dict[str, Engine]) -> None:
    vocab = engines["agentpair"].vocab
    values = ["alpha beta gamma", "delta"]
    for wanted, sure in ((0, True), (1, False)):
        canvas = compile_template(vocab, "x = {{v}}", {"/v": values}).canvas
        sampler, reference = ThresholdSampler(block_length=64), ReferenceSampler(block_length=64)
        p = sampler.start(canvas)
        read = sampler.read(p)
        assert sorted(read) == sorted(canvas.masked()) and reference.read(reference.start(canvas)) == read[:1]
        slot = canvas.owner[read[0]][0]
        logits = torch.zeros(len(read), len(vocab.texts))  # [n, V]: each position votes for the wanted value's token
        for k, q in enumerate(read):
            logits[k, slot.seqs[wanted][canvas.owner[q][1]]] = 20.0 if sure else 0.0  # else: no opinion
        committed = sampler.step(p, logits)
        if sure:  # every position of the value from this one pass
            assert committed == len(read) and p.nfe == 1 and slot.value() == values[wanted]
        else:  # the values as likely: its first token only, as any position
            assert committed == 1


def test_under_a_temperature_a_choice_is_sampled_token_by_token(engines: dict[str, Engine]) -> None:
    canvas = compile_template(engines["agentpair"].vocab, "x = {{v}}", {"/v": ["alpha beta gamma", "delta"]}).canvas
    greedy, sampling = ThresholdSampler(block_length=64), ThresholdSampler(block_length=64, temperature=1.0)
    assert len(greedy.read(greedy.start(canvas))) > 1  # the whole value's positions
    p = sampling.start(canvas)
    assert sampling.read(p) == sampling.positions(p) and len(sampling.read(p)) == 1  # its first token


def test_after_a_choice_committed_whole_the_other_positions_take_their_own_logits(engines: dict[str, Engine]) -> None:
    vocab = engines["agentpair"].vocab
    canvas = compile_template(vocab, "x = {{v}}; y = {{w:3}}", {"/v": ["alpha beta gamma", "delta"]}).canvas
    sampler = ThresholdSampler(block_length=64)
    p = sampler.start(canvas)
    positions, read = sampler.positions(p), sampler.read(p)
    assert read[:len(positions)] == positions
    choice = canvas.owner[positions[0]][0]
    letter = vocab.encode("a")[0]  # a text token: nothing of the text hole is forced
    logits = torch.zeros(len(read), len(vocab.texts))  # [n, V]: sure of everything
    for k, q in enumerate(read):
        slot, i = canvas.owner[q]
        logits[k, slot.seqs[0][i] if slot is choice else letter] = 20.0
    masked = len(canvas.masked())
    assert sampler.step(p, logits) == masked and not canvas.masked()  # every position, each once
    assert choice.value() == "alpha beta gamma" and p.tokens == masked
