"""Training: a tiny run checkpoints, resumes and loads; the AR baseline decodes; shipped weights."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from executor_engine import Engine, FillInput, ThresholdSampler
from executor_engine.ar import ARDecoder
from executor_engine.canvas import Vocab
from executor_engine.training.data import Renamer, encode_record, group_by_context, json_strings, pack, \
    page_words, record_texts, train_tokenizer
from executor_engine.training.train import parse_args, train
from tests.datagen_helpers import offline_records

TINY = ["--d-model", "32", "--layers", "2", "--heads", "2", "--kv-heads", "2", "--mlp", "64",
        "--vocab-size", "500", "--pages", "2", "--per-page", "3", "--warmup", "1", "--threads", "1"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("data") / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in offline_records("train", 6)))
    return path


def _request(record: dict) -> FillInput:
    return FillInput(record["instruction"], record["context"], record.get("schema"),
                     record.get("template"), record["allowed"])


def test_tiny_run_checkpoints_resumes_and_loads(dataset: Path, tmp_path: Path):
    out = tmp_path / "run"
    train(parse_args(["--data", str(dataset), "--out", str(out), "--steps", "2", *TINY]))
    assert (out / "state.pt").is_file() and (out / "final" / "model.safetensors").is_file()
    train(parse_args(["--data", str(dataset), "--out", str(out), "--steps", "4", *TINY]))
    log = (out / "train.log").read_text()
    assert "resumed at step 2" in log and "'steps': 4" in log
    record = next(r for r in offline_records("heldout", 2) if r.get("tool") == "click")
    out_fill = Engine.load(out / "final", device="cpu").fill([_request(record)])[0]
    assert out_fill.error is None and out_fill.value["ref"] in record["allowed"]["/ref"]


def test_a_run_can_start_from_a_checkpoint(dataset: Path, tmp_path: Path):
    first = train(parse_args(["--data", str(dataset), "--out", str(tmp_path / "a"), "--steps", "2",
                              *TINY]))
    # other shape flags are ignored: the shape, the weights and the tokenizer come from --init
    again = train(parse_args(["--data", str(dataset), "--out", str(tmp_path / "b"), "--steps", "0",
                              "--init", str(first), *TINY, "--d-model", "48"]))
    assert "initialised from" in (tmp_path / "b" / "train.log").read_text()
    assert (again / "tokenizer.json").read_text() == (first / "tokenizer.json").read_text()
    before, after = (load_file(str(d / "model.safetensors")) for d in (first, again))
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    # a causal model may start from the diffusion model's weights (one network, other attention)
    causal = train(parse_args(["--data", str(dataset), "--out", str(tmp_path / "c"), "--arch", "ar",
                               "--init", str(first), "--steps", "0", *TINY]))
    assert "(arch diffusion), trained as ar" in (tmp_path / "c" / "train.log").read_text()
    assert json.loads((causal / "config.json").read_text())["arch"] == "ar"
    fill = ARDecoder.load(causal).fill([_request(offline_records("heldout", 1)[0])])[0]
    assert fill.error is None, fill.error


def test_a_name_is_the_same_tokens_in_instruction_and_snapshot():
    names = ("Pricing", "Member ID", "Zopa Botoga")
    seen = [f'Click {n} or link "{n}"' for n in names] * 50  # common enough to merge whole
    tok = train_tokenizer([*record_texts(offline_records("train", 2)), *seen], 500)
    for name in names:
        in_snapshot = tok.encode(f'- link "{name}" [ref=e4]').tokens
        in_instruction = tok.encode(f"Click {name} now").tokens
        name_tokens = tok.encode(name).tokens
        for tokens in (in_snapshot, in_instruction):
            assert any(tokens[i:i + len(name_tokens)] == name_tokens for i in range(len(tokens)))


@pytest.mark.parametrize("arch", ["diffusion", "ar"])
def test_every_example_and_every_slot_in_it_weighs_the_same_in_the_loss(arch: str):
    records = offline_records("train", 2)
    tok = train_tokenizer(record_texts(records), 500)
    vocab = Vocab(tok, 512, tok.token_to_id("<|pad|>"), tok.token_to_id("<|mask|>"))
    typing = [r for r in records if r.get("tool") == "type"][:2]  # ref, text and submit slots
    encoded = [encode_record(vocab, r) for r in typing + records[:4]]
    batch = pack([encoded[:3], encoded[3:]], arch, vocab.mask_id, random.Random(0))
    assert torch.allclose(batch.weights.sum(), torch.tensor(6.0))
    assert ((batch.weights > 0) == (batch.targets != -100)).all()
    if arch == "ar":  # every slot all targets: each slot's share is the same, however long it is
        e, row = encoded[0], batch.weights[0]
        start = len(e.instruction) - 1  # the token before a slot position predicts it
        shares = [sum(float(row[start + p]) for p, k in zip(e.slots, e.slot_of) if k == slot)
                  for slot in sorted(set(e.slot_of))]
        assert len(shares) == 3 and max(e.slot_of.count(k) for k in range(3)) > 1  # ref, text, submit
        assert all(abs(share - 1 / 3) < 1e-6 for share in shares)


def test_renaming_a_page_keeps_every_target_where_the_context_has_it():
    records = offline_records("train", 30)
    tok = train_tokenizer(record_texts(records), 1500)
    vocab = Vocab(tok, 1536, tok.token_to_id("<|pad|>"), tok.token_to_id("<|mask|>"))
    encoded = []
    for r in records:
        try:
            encoded.append(encode_record(vocab, r))
        except ValueError:  # a target longer than its slot in this small vocabulary
            pass
    groups = group_by_context(encoded)
    rename = Renamer(vocab, groups)
    assert "click" not in rename.names and "button" not in rename.names  # words, not names
    group = max(groups, key=lambda g: len(page_words(g) & rename.names))
    renamed = rename(group, random.Random(0))
    assert renamed is not group
    keys = {k.lower() for e in group for value in e.record.values() if isinstance(value, dict) for k in value}
    gone = page_words(group) & rename.names - keys  # a field's name ("level") is a key too: it stays
    assert len(gone) > 3 and not gone & page_words(renamed)  # every other name, in every case
    assert all(r.context == renamed[0].context for r in renamed)
    old_tokens = new_tokens = 0
    for e, r in zip(group, renamed):
        fixed = [[t for i, t in enumerate(x.canvas) if i not in set(x.slots)] for x in (e, r)]
        assert fixed[0] == fixed[1]  # the schema around the slots is not renamed; a choice may grow
        for old, new in zip(json_strings(e.record["target"]), json_strings(r.record["target"])):
            if old in e.record["context"]:  # copied from the page: still copyable, renamed alike
                assert new in r.record["context"]
            if old != new:
                old_tokens += len(tok.encode(old).ids)
                new_tokens += len(tok.encode(new).ids)
    assert new_tokens > old_tokens  # made-up names split into more tokens, like unseen ones


def test_eval_data_logs_heldout_accuracy(dataset: Path, tmp_path: Path):
    heldout = tmp_path / "heldout.jsonl"
    heldout.write_text("".join(json.dumps(r) + "\n" for r in offline_records("heldout", 1)))
    train(parse_args(["--data", str(dataset), "--out", str(tmp_path), "--steps", "2",
                      "--eval-data", str(heldout), "--eval-every", "2", *TINY]))
    assert "eval step 2 {'tool_call_exact'" in (tmp_path / "train.log").read_text()


def test_ar_baseline_decodes_valid_values(dataset: Path, tmp_path: Path):
    final = train(parse_args(["--data", str(dataset), "--out", str(tmp_path), "--arch", "ar",
                              "--steps", "2", *TINY]))
    every = offline_records("heldout", 2)
    records = every[:6] + [next(r for r in every if r["kind"] == "code")]
    outputs = ARDecoder.load(final).fill([_request(r) for r in records])
    assert outputs[-1].nfe >= 1  # a code hole is decoded step by step (a fill left one value needs none)
    for r, o in zip(records, outputs):
        assert o.error is None
        if "ref" in r["target"]:
            assert o.value["ref"] in r["allowed"]["/ref"]
    with pytest.raises(Exception, match="not an AR checkpoint"):
        ARDecoder.load(train(parse_args(["--data", str(dataset), "--out", str(tmp_path / "d"),
                                         "--steps", "1", *TINY])))


def test_shipped_model_fills_a_tool_call():
    from agentpair.executor.local import LocalDiffusionExecutor
    from agentpair.models import FillRequest

    executor = LocalDiffusionExecutor()
    record = next(r for r in offline_records("heldout", 3) if r.get("tool") == "click")
    request = FillRequest(kind="tool_args", instruction=record["instruction"],
                          context=record["context"], schema=record["schema"],
                          allowed=record["allowed"])
    result = asyncio.run(executor.fill([request]))[0]
    assert result.error is None and result.value["ref"] in record["allowed"]["/ref"]
    assert isinstance(executor.engine.fill([_request(record)], ThresholdSampler())[0].value, dict)


def test_shipped_ar_baseline_fills_a_tool_call():
    from agentpair.executor.ar import ARBaselineExecutor
    from agentpair.models import FillRequest

    record = next(r for r in offline_records("heldout", 3) if r.get("tool") == "click")
    request = FillRequest(kind="tool_args", instruction=record["instruction"],
                          context=record["context"], schema=record["schema"],
                          allowed=record["allowed"])
    result = asyncio.run(ARBaselineExecutor().fill([request]))[0]
    assert result.error is None and result.value["ref"] in record["allowed"]["/ref"]


def test_the_evaluation_reports_both_decoders_side_by_side_on_the_shipped_weights(tmp_path: Path):
    from agentpair.executor.local import WEIGHTS
    from executor_engine.training.evaluate import evaluate

    records = offline_records("heldout", 4)
    data = tmp_path / "heldout.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = evaluate(WEIGHTS / "executor", WEIGHTS / "executor-ar", data, batches=1)
    assert report["examples"] == len(records)
    for key in ("accuracy", "accuracy_one_token", "accuracy_ar"):
        assert set(report[key]) == {"tool_call_exact", "extract_field", "code_hole_exact"}
    assert report["accuracy"]["tool_call_exact"] > 0.5  # the shipped model fills these
    assert 0 < report["model_fills"] <= len(records)  # fills a forward ran for, on either side
    assert report["model_fill_ms_p50"] > 0 and report["ar_model_fill_ms_p50"] > 0
    assert report["speedup_vs_ar_model_fills"] == round(report["ar_model_fill_ms_p50"]
                                                        / report["model_fill_ms_p50"], 2)
