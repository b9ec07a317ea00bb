"""Batching equals running alone; the exact context cache equals no cache; contexts encode once."""

from __future__ import annotations

import pytest
import torch

from executor_engine import Engine, FillInput, ReferenceSampler, ThresholdSampler
from executor_engine.ar import ARDecoder

SCHEMA = {"type": "object", "properties": {"ref": {"type": "string"}, "text": {"type": "string",
          "maxLength": 12}, "n": {"type": "integer"}}, "required": ["ref", "text"]}


def requests() -> list[FillInput]:
    return [
        FillInput("click sign in", context="button Sign in [ref=e3]\nlink Home [ref=e7]",
                  schema=SCHEMA, allowed={"/ref": ["e3", "e7"]}),
        FillInput("write a loop", context="page: editor", template="for i in range({{n:3}}):\n    {{body:10}}"),
        FillInput("type the email", context="button Sign in [ref=e3]\nlink Home [ref=e7]",
                  schema={"type": "object", "properties": {"text": {"type": "string", "maxLength": 30}}}),
        FillInput("extract prices", context="Blue shirt $19.99, Red hat $7.50 and Green socks $4. " * 3,
                  schema={"type": "array", "items": {"type": "number"}, "maxItems": 3}),
        FillInput("bad", schema={"type": "string", "pattern": "x+"}),
    ]


def _key(outs: list) -> list:
    return [(o.value, o.nfe, o.tokens, o.error) for o in outs]


@pytest.mark.parametrize("layout,use_cache", [("agentpair", True), ("agentpair", False),
                                              ("agentpair+copy", True), ("agentpair+copy", False),
                                              ("llada", False), ("dream", False),
                                              ("llada", True), ("dream", True)])
def test_batch_equals_single(engines: dict[str, Engine], layout: str, use_cache: bool) -> None:
    engine = engines[layout]
    for sampler in (ThresholdSampler(threshold=0.6), ReferenceSampler(block_length=8, steps_per_block=4)):
        batched = engine.fill(requests(), sampler, use_cache=use_cache)
        alone = [engine.fill([r], sampler, use_cache=use_cache)[0] for r in requests()]
        assert _key(batched) == _key(alone)
        assert batched[-1].error and "pattern" in batched[-1].error


def test_small_max_batch_queues(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair"]
    full = engine.fill(requests())
    engine.max_batch = 2
    try:
        assert _key(engine.fill(requests())) == _key(full)
    finally:
        engine.max_batch = 32


@pytest.mark.parametrize("layout", ["agentpair", "agentpair+copy"])
def test_exact_cache_equals_uncached(engines: dict[str, Engine], layout: str) -> None:
    engine = engines[layout]
    for sampler in (ThresholdSampler(threshold=0.6), ReferenceSampler(temperature=0.8, seed=2)):
        assert _key(engine.fill(requests(), sampler, use_cache=True, record_passes=False)) == \
            _key(engine.fill(requests(), sampler, use_cache=False))
    jobs = [engine._job(i, r, ThresholdSampler()) for i, r in enumerate(requests()[:4])]
    for job in jobs:
        engine._read_context(job, exact_kv=True)
    every = [list(range(len(j.compiled.canvas.ids))) for j in jobs]  # logits at every position
    full = engine._forward_full(jobs, every, False)
    first = engine._forward_canvas(jobs, every)  # instruction computed with the canvas, then cached
    again = engine._forward_canvas(jobs, every)  # instruction K/V from the prefix
    for b, job in enumerate(jobs):
        n = len(job.compiled.canvas.ids)
        torch.testing.assert_close(first[b, :n], full[b, :n], atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(again[b, :n], full[b, :n], atol=1e-4, rtol=1e-4)
    # a pass asks only for the positions its sampler chooses among: the same rows, fewer of them
    some = [w[b % 3::3] for b, w in enumerate(every)]
    for forward in (engine._forward_full, engine._forward_canvas):
        part = forward(jobs, some, False)
        for b, w in enumerate(some):
            torch.testing.assert_close(part[b, :len(w)], full[b, w], atol=1e-4, rtol=1e-4)


def test_approximate_cache_refreshes_per_block(engines: dict[str, Engine]) -> None:
    engine = engines["llada"]
    req = FillInput("go", context="some context", template="{{a:16}}")
    sampler = ReferenceSampler(block_length=8)
    full_forwards = 0
    forward_full = engine._forward_full

    def counting(jobs, wanted, store):
        nonlocal full_forwards
        full_forwards += 1
        return forward_full(jobs, wanted, store)

    engine._forward_full = counting
    try:
        cached = engine.fill([req], sampler, use_cache=True)[0]
    finally:
        del engine._forward_full
    assert cached.error is None and cached.nfe == 16 and full_forwards == 2  # one per block


def test_context_encoded_once(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair"]
    engine._contexts.clear()
    ctx = "shared page text " * 5
    n_ctx = len(engine.vocab.encode(ctx + "\n"))
    calls = 0
    forward = engine.model.forward

    def counting(ids, *args, **kwargs):
        nonlocal calls
        calls += ids.shape[1] == n_ctx
        return forward(ids, *args, **kwargs)

    engine.model.forward = counting
    try:
        engine.fill([FillInput(f"q{i}", context=ctx, template="{{a:3}}") for i in range(4)])
    finally:
        del engine.model.forward
    assert calls == 1  # the context K/V, computed once for four requests


def test_a_fill_decided_without_a_forward_never_encodes_its_context(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair+copy"]
    ar = ARDecoder(engine.model, engine.vocab)
    schema = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
    page = "button Sign in [ref=e3]\nlink Home [ref=e7]"
    one = FillInput("click sign in", context=page, schema=schema, allowed={"/ref": ["e3"]})
    two = FillInput("click sign in", context=page, schema=schema, allowed={"/ref": ["e3", "e7"]})
    engine._contexts.clear()
    (out,) = engine.fill([one])
    assert out.value == {"ref": "e3"} and out.nfe == 0 and page not in engine._contexts
    engine.fill([two])
    assert engine._contexts[page][1] is not None  # a real choice reads the page
    (out,) = ar.fill([one])
    assert out.value == {"ref": "e3"} and out.nfe == 0 and page not in ar._contexts
    ar.fill([two])
    assert page in ar._contexts


def test_ar_cache_written_in_place_equals_one_causal_pass_laid_out_as_training(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair+copy"]
    ar = ARDecoder(engine.model, engine.vocab)
    assert _key(ar.fill(requests())) == _key([ar.fill([r])[0] for r in requests()])  # padded = alone
    job = ar._start(requests()[1])  # free text: one forward per slot token
    while not job.done:
        allowed = ar._advance(job)
        if allowed is not None:
            ar._step([job], [allowed])
    assert job.nfe > 3 and job.buffers is not None
    context = job.context[0][0].shape[2]
    fed = engine.vocab.encode("write a loop\n") + job.compiled.canvas.ids
    ids = torch.tensor([engine.vocab.encode("page: editor\n") + fed])[:, :job.length]  # [1, S]
    assert ids.shape[1] == job.length > context
    causal = torch.ones(job.length, job.length, dtype=torch.bool).tril()[None]
    instruction = len(engine.vocab.encode("write a loop\n"))  # segments as a training row has them
    segments = torch.tensor([[0] * context + [1] * instruction + [2] * (job.length - context - instruction)])
    whole = engine.model(ids, mask=causal, logits_at=ids[:, -1:] * 0, segments=segments)[1]
    for (k, v), (wk, wv) in zip(job.cache, whole):
        torch.testing.assert_close(k, wk, atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(v, wv, atol=1e-4, rtol=1e-4)
