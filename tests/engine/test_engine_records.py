"""Record-local passes: once every open position lies in an array item or an object's property, a
pass computes only the records still open, reading the rest from the cache; the values stay the
schema's and the offers'."""

from __future__ import annotations

import jsonschema
import torch

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


def test_a_flat_objects_later_passes_compute_only_its_open_properties(engines: dict[str, Engine]) -> None:
    """A long form: one string per field, every field offered every value."""
    engine, keys = engines["agentpair"], [f"field_{i}" for i in range(8)]
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in keys}, "required": keys}
    req = FillInput("Fill in: " + ", ".join(f'{k} "{n}"' for k, n in zip(keys, NAMES + ["Alonzo", "Kurt"])),
                    "a form", schema, allowed={"/" + k: NAMES for k in keys})
    widths: list[int] = []
    forward = engine.model.forward
    engine.model.forward = lambda ids, *a, **kw: widths.append(ids.shape[1]) or forward(ids, *a, **kw)
    try:
        [out] = engine.fill([req], ThresholdSampler(threshold=0.99, choice_threshold=0.999))
    finally:
        del engine.model.forward
    assert out.error is None and set(out.value) == set(keys) and all(v in NAMES for v in out.value.values())
    assert out.nfe > 2 and widths[-1] < widths[-out.nfe + 1] <= widths[-out.nfe]  # the last pass: one field's span


def test_tied_choices_take_their_values_from_one_place(engines: dict[str, Engine]) -> None:
    req = bulk()
    req.allowed = {**req.allowed, **{f"/{i}/name": [n, "x" + n, "none"] for i, n in enumerate(NAMES)}}
    req.tied = [[f"/{i}/name" for i in range(6)]]
    decoder = ARDecoder.load(WEIGHTS / "executor-ar", device="cpu")  # the shipped AR baseline
    token_by_token = ThresholdSampler(threshold=0.0, choice_threshold=1.01)  # every open token in one step
    outs = [*engines["agentpair"].fill([req], ThresholdSampler(threshold=0.99, choice_threshold=0.999)),
            *engines["agentpair"].fill([req], token_by_token), *decoder.fill([req])]
    for out in outs:
        assert out.error is None
        places = {req.allowed[f"/{i}/name"].index(row["name"]) for i, row in enumerate(out.value)}
        assert len(places) == 1  # one column for every record, whichever the model chose
    mismatched = FillInput(req.instruction, req.context, SCHEMA, allowed={**req.allowed, "/0/name": ["Ada", "Alan"]},
                           tied=req.tied)
    [out] = engines["agentpair"].fill([mismatched])
    assert out.error and "tied pointers" in out.error


def test_a_tied_choice_narrowed_within_a_step_keeps_to_its_ties_place(engines: dict[str, Engine]) -> None:
    from executor_engine.canvas import Canvas, ChoiceSlot, tie

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    first = canvas.add_slot(ChoiceSlot(vocab, ["Ada", "Bea"], ["Ada", "Bea"]))
    second = canvas.add_slot(ChoiceSlot(vocab, ["Cy", "Dot"], ["Cy", "Dot"]))
    tie([first, second])
    sampler = ThresholdSampler(threshold=0.0, choice_threshold=1.01)  # token by token, all at once
    progress = sampler.start(canvas)
    read = sampler.read(progress)
    logits = torch.zeros(len(read), len(vocab.texts))
    wants = {read.index(min(q for q, (s, _) in canvas.owner.items() if s is slot)): seq[0]
             for slot, seq in ((first, first.seqs[0]), (second, second.seqs[1]))}  # Ada, and Dot: two places
    for row, tok in wants.items():
        logits[row, tok] = 10.0
    while not progress.done:
        sampler.step(progress, logits[: len(sampler.read(progress))])
        logits = torch.zeros(len(sampler.read(progress)) or 1, len(vocab.texts))
    assert (first.value(), second.value()) == ("Ada", "Cy")  # the later commit follows the earlier one's place


def test_distinct_choices_never_share_a_value(engines: dict[str, Engine]) -> None:
    names = NAMES[:4]
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in ("a", "b", "c", "d")},
              "required": ["a", "b", "c", "d"]}
    req = FillInput("Fill in a, b, c and d: " + ", ".join(f'"{n}"' for n in names), "", schema,
                    allowed={f"/{k}": names for k in "abcd"}, distinct=[[f"/{k}" for k in "abcd"]])
    decoder = ARDecoder.load(WEIGHTS / "executor-ar", device="cpu")
    outs = [*engines["agentpair"].fill([req], ThresholdSampler(threshold=0.9)),
            *engines["agentpair"].fill([req], ThresholdSampler(threshold=0.0, choice_threshold=1.01)),
            *decoder.fill([req])]
    for out in outs:
        assert out.error is None and sorted(out.value.values()) == sorted(names)  # each value once
    bad = FillInput(req.instruction, "", {**schema, "properties": {**schema["properties"], "e": {"type": "integer"}}},
                    allowed=req.allowed, distinct=[["/a", "/e"]])
    [out] = engines["agentpair"].fill([bad])
    assert out.error and "distinct pointers" in out.error


def test_a_settled_choice_leaves_its_value_to_no_other_unless_it_is_all_they_have(engines: dict[str, Engine]) -> None:
    from executor_engine.canvas import Canvas, ChoiceSlot, set_apart

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    slots = [canvas.add_slot(ChoiceSlot(vocab, v, v)) for v in (["Ada", "Bea"], ["Ada", "Bea"], ["Ada"])]
    set_apart(slots)
    first = min(q for q, (s, _) in canvas.owner.items() if s is slots[0])
    for q in sorted(q for q, (s, _) in canvas.owner.items() if s is slots[0]):
        canvas.commit(q, slots[0].seqs[0][q - first])  # the first settles on Ada
    assert slots[0].value() == "Ada"
    assert [s for s in slots[1].live] == [slots[1].seqs[1]]  # Bea is all the second may take
    assert slots[2].live == [slots[2].seqs[0]]  # the third had nothing else: it keeps Ada


def _settle(canvas, slot, value) -> None:  # commit a choice's value, token by token
    start = min(q for q, (s, _) in canvas.owner.items() if s is slot)
    seq = slot.seqs[slot.values.index(value)]
    for q in sorted(q for q, (s, _) in canvas.owner.items() if s is slot):
        canvas.commit(q, seq[q - start])


def test_values_are_kept_apart_as_they_read_whatever_their_choices_room_or_type(engines: dict[str, Engine]) -> None:
    from executor_engine.canvas import Canvas, ChoiceSlot, set_apart

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    named = canvas.add_slot(ChoiceSlot(vocab, ["Ada"], ['"Ada"']))  # one value: a shorter room than the next
    other = canvas.add_slot(ChoiceSlot(vocab, ["Ada", "Bartholomew Smith"], ['"Ada"', '"Bartholomew Smith"']))
    points = canvas.add_slot(ChoiceSlot(vocab, [16, 4], ["16", "4"]))
    ref = canvas.add_slot(ChoiceSlot(vocab, ["16", "4DCQKV"], ['"16"', '"4DCQKV"']))
    set_apart([named, other]), set_apart([points, ref])
    _settle(canvas, named, "Ada")
    _settle(canvas, points, 16)
    assert [other.values[other.seqs.index(s)] for s in other.live] == ["Bartholomew Smith"]
    assert [ref.values[ref.seqs.index(s)] for s in ref.live] == ["4DCQKV"]  # 16 and "16" read alike


def test_a_tied_choice_keeps_to_its_ties_place_even_where_a_partner_took_that_value(engines: dict[str, Engine]) -> None:
    from executor_engine.canvas import Canvas, ChoiceSlot, set_apart, tie

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    a = [canvas.add_slot(ChoiceSlot(vocab, cells, [f'"{c}"' for c in cells])) for cells in (["Ada", "Bea"], ["Cy", "Dee"])]
    b0 = canvas.add_slot(ChoiceSlot(vocab, ["Bea"], ['"Bea"']))
    tie(a), set_apart([a[0], b0])
    _settle(canvas, b0, "Bea")  # the first record's a can no longer take Bea ...
    _settle(canvas, a[1], "Dee")  # ... but the column its ties settle on says Bea
    assert len(a[0].live) == 1 and a[0].live[0] == a[0].seqs[1]  # the place wins; never no value at all


def test_a_distinct_group_is_settled_together_the_likeliest_pair_first(engines: dict[str, Engine]) -> None:
    import math

    from executor_engine.canvas import Canvas, ChoiceSlot, set_apart

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    names = ["Ada", "Bea", "Cy"]
    slots = [canvas.add_slot(ChoiceSlot(vocab, names, names)) for _ in range(3)]
    set_apart(slots)
    # the first wants Ada (0.9); the second Ada too (0.55), else Bea (0.4); the third Cy (0.8)
    wanted = [{"Ada": 0.9, "Bea": 0.05, "Cy": 0.05}, {"Ada": 0.55, "Bea": 0.4, "Cy": 0.05},
              {"Ada": 0.1, "Bea": 0.1, "Cy": 0.8}]
    sampler = ThresholdSampler(threshold=0.9, whole_choices=True)
    progress = sampler.start(canvas)
    read = sampler.read(progress)
    logits = torch.zeros(len(read), len(vocab.texts))
    for slot, probs in zip(slots, wanted):
        row = read.index(min(q for q, (s, _) in canvas.owner.items() if s is slot))
        for name, prob in probs.items():
            logits[row, slot.seqs[names.index(name)][0]] = 20 + math.log(prob)
    sampler.step(progress, logits)
    assert progress.done and progress.nfe == 1  # Ada and Cy settled, which leaves Bea the second's only value
    assert [s.value() for s in slots] == ["Ada", "Bea", "Cy"]


def test_a_tied_choice_in_a_distinct_group_is_settled_on_all_its_records_evidence(engines: dict[str, Engine]) -> None:
    import math

    from executor_engine.canvas import Canvas, ChoiceSlot, set_apart, tie

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    rows = [["Ada", "Bea"], ["Cy", "Dee"]]  # two records' cells; fields a and b each read one column
    a = [canvas.add_slot(ChoiceSlot(vocab, cells, cells)) for cells in rows]
    b = [canvas.add_slot(ChoiceSlot(vocab, cells, cells)) for cells in rows]
    tie(a), tie(b)
    for record in zip(a, b):
        set_apart(list(record))
    # the first record alone puts a in column 0 (0.9); both records together, in column 1
    wanted = [(a[0], [0.9, 0.1]), (a[1], [0.02, 0.98]), (b[0], [0.6, 0.4]), (b[1], [0.6, 0.4])]
    sampler = ThresholdSampler(threshold=0.9, whole_choices=True)
    progress = sampler.start(canvas)
    read = sampler.read(progress)
    logits = torch.zeros(len(read), len(vocab.texts))
    for slot, probs in wanted:
        row = read.index(min(q for q, (s, _) in canvas.owner.items() if s is slot))
        for seq, prob in zip(slot.seqs, probs):
            logits[row, seq[0]] = 20 + math.log(prob)
    sampler.step(progress, logits)
    assert progress.done and progress.nfe == 1
    assert [s.value() for s in (*a, *b)] == ["Bea", "Dee", "Ada", "Cy"]


def test_a_choice_widened_back_by_its_tie_within_a_step_is_drawn_again_from_what_it_allows(
        engines: dict[str, Engine]) -> None:
    from executor_engine.canvas import Canvas, ChoiceSlot, set_apart, tie

    vocab = engines["agentpair"].vocab
    canvas = Canvas(vocab)
    a = [canvas.add_slot(ChoiceSlot(vocab, cells, [f'"{c}"' for c in cells]))
         for cells in (["Ada", "Bea", "Cal"], ["Cy", "Dee", "Eve"])]
    b0 = canvas.add_slot(ChoiceSlot(vocab, ["Bea"], ['"Bea"']))  # settles at the start: a[0] may not take Bea
    tie(a), set_apart([a[0], b0])
    sampler = ThresholdSampler(threshold=0.0, whole_choices=False)
    progress = sampler.start(canvas)
    read = sampler.read(progress)
    logits = torch.zeros(len(read), len(vocab.texts))
    first = {id(s): next(q for q in read if canvas.owner[q][0] is s) for s in a}
    k = canvas.owner[first[id(a[0])]][1]  # the position where the names part
    logits[read.index(first[id(a[1])]), a[1].seqs[1][k]] = 20  # the second record: Dee, surely (committed first)
    logits[read.index(first[id(a[0])]), a[0].seqs[0][k]] = 5  # the first: Ada, less sure, but its column is Bea's
    logits[read.index(first[id(a[0])]), a[0].seqs[2][k]] = 4.5
    while not progress.done:
        sampler.step(progress, logits if progress.nfe == 0 else torch.zeros(len(sampler.read(progress)), len(vocab.texts)))
    assert [s.value() for s in a] == ["Bea", "Dee"]  # the tie's place, never a token outside its values
