"""Record-local passes: once every open position lies in an array item, a pass computes only the
items still open, reading the rest from the cache; the values stay the schema's and the offers'."""

from __future__ import annotations

import jsonschema

from agentpair.executor.local import WEIGHTS
from executor_engine import Engine
from executor_engine.ar import ARDecoder
from executor_engine.engine import FillInput
from executor_engine.sampler import ThresholdSampler

NAMES = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald"]
SCHEMA = {"type": "array", "minItems": 6, "maxItems": 6, "items": {
    "type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer"}}}}


def bulk() -> FillInput:
    allowed = {f"/{i}/name": [n, NAMES[(i + 1) % 6], "none"] for i, n in enumerate(NAMES)}
    allowed |= {f"/{i}/qty": [i, i + 10] for i in range(6)}
    page = "\n".join(f'- row: cell "{n}" cell "{i}"' for i, n in enumerate(NAMES))
    return FillInput("List every person with their quantity", page, SCHEMA, allowed=allowed)


def test_passes_after_the_first_compute_only_the_open_records(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair"]
    widths: list[int] = []
    forward = engine.model.forward

    def counting(ids, *args, **kwargs):
        widths.append(ids.shape[1])
        return forward(ids, *args, **kwargs)

    sampler = ThresholdSampler(threshold=0.99, choice_threshold=0.999)  # random weights: a pass commits little
    engine.model.forward = counting
    try:
        [whole] = engine.fill([bulk()], sampler, record_passes=False)
        whole_widths, widths[:] = list(widths), []
        [local] = engine.fill([bulk()], sampler)
    finally:
        del engine.model.forward
    assert whole.error is None and local.error is None
    for out in (whole, local):
        jsonschema.validate(out.value, SCHEMA)
        assert all(row["name"] in bulk().allowed[f"/{i}/name"] for i, row in enumerate(out.value))
    assert local.nfe > 2  # several passes, so some were record-local
    # whole: the context's K/V (cached for the second fill), instruction + canvas, then the canvas each pass
    first, canvas = whole_widths[1], whole_widths[2]
    assert all(w == canvas for w in whole_widths[2:]) and len(whole_widths) == whole.nfe + 1
    assert widths[0] == first and all(w < canvas for w in widths[1:]) and len(widths) == local.nfe


def test_tied_choices_take_their_values_from_one_place(engines: dict[str, Engine]) -> None:
    req = bulk()
    req.allowed = {**req.allowed, **{f"/{i}/name": [n, "x" + n, "none"] for i, n in enumerate(NAMES)}}
    req.tied = [[f"/{i}/name" for i in range(6)]]
    decoder = ARDecoder.load(WEIGHTS / "executor-ar", device="cpu")  # the shipped AR baseline
    outs = [*engines["agentpair"].fill([req], ThresholdSampler(threshold=0.99, choice_threshold=0.999)), *decoder.fill([req])]
    for out in outs:
        assert out.error is None
        places = {req.allowed[f"/{i}/name"].index(row["name"]) for i, row in enumerate(out.value)}
        assert len(places) == 1  # one column for every record, whichever the model chose
    mismatched = FillInput(req.instruction, req.context, SCHEMA, allowed={**req.allowed, "/0/name": ["Ada", "Alan"]},
                           tied=req.tied)
    [out] = engines["agentpair"].fill([mismatched])
    assert out.error and "tied pointers" in out.error
