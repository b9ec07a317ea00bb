"""Draft tokens for greedy decoding under a grammar, guessed from text already seen (prompt lookup
decoding): where the last tokens written also occur earlier in the prompt or in a recent answer, the
tokens that followed them there are the guess. agentpair.llm.fast_forward evaluates the guesses in the
same forward as the next token and keeps those the model would have picked itself; a plan copies much
of its text (the goal's values, the page's names, a thought said before) and each guess kept is a
forward saved. On this 2-core CPU a forward costs about 10 ms and each more token in it about 3 ms,
so guesses pay only when most are right: three at most, after a context of three tokens.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from typing import Any

NGRAMS = (3,)  # the context a guess is looked up by: the last 3 tokens (2 guessed too often wrong)
MAX_DRAFTED = 3  # guessed tokens in one forward at most (after a wrong one the rest are wasted)
MAX_BATCH = 32  # tokens guessed or forced after a guess in one forward at most
RECENT_ANSWERS = 16  # answers kept to guess from, beside the prompt (from the prompt alone guesses saved no time)

_recent: collections.deque[list[int]] = collections.deque(maxlen=RECENT_ANSWERS)  # this process's last answers


class Lookup:
    """The tokens seen so far (recent answers, the prompt, the answer being written) and, for each
    n-gram among them, where the token after its latest occurrence is."""

    def __init__(self, tokens: Iterable[int]) -> None:
        self.tokens: list[int] = []
        self.after: dict[tuple[int, ...], int] = {}
        self.extend(tokens)

    def extend(self, tokens: Iterable[int]) -> None:
        for token in tokens:
            self.add(token)

    def add(self, token: int) -> None:
        at = len(self.tokens)
        for n in NGRAMS:
            if at >= n:
                self.after[tuple(self.tokens[at - n:at])] = at  # the n-gram before `at` is followed by `token`
        self.tokens.append(token)

    def next(self, context: Sequence[int]) -> int | None:
        """The token that followed the latest earlier occurrence of the context's last n-gram."""
        for n in NGRAMS:
            if len(context) >= n and (at := self.after.get(tuple(context[-n:]))) is not None:
                return self.tokens[at]
        return None


def lookup(prompt: Sequence[int]) -> Lookup:
    """A lookup over this process's recent answers and then the prompt (the prompt's occurrences,
    later, win)."""
    return Lookup([token for answer in list(_recent) for token in answer] + list(prompt))  # a copy: calls run side by side


def remember(answer: Sequence[int]) -> None:
    """Keep an answer to guess later ones from (plans repeat their thoughts and wordings)."""
    if answer:
        _recent.append(list(answer))


def draft(seen: Lookup, matcher: Any, room: int) -> list[tuple[int, list[int]]]:
    """Guesses for the next tokens: [(guessed token, the tokens the grammar forces after it)], each
    allowed by the grammar after those before it, within `room` tokens in all; the matcher is left
    as it was."""
    guesses: list[tuple[int, list[int]]] = []
    context = list(seen.tokens[-max(NGRAMS):])
    used = 0
    while len(guesses) < MAX_DRAFTED:
        token = seen.next(context)
        if token is None or matcher.validate_tokens([token]) != 1:
            break
        matcher.consume_token(token)
        forced = matcher.compute_ff_tokens()
        if used + 1 + len(forced) > room:
            matcher.rollback(1)
            break
        matcher.consume_tokens(forced)
        used += 1 + len(forced)
        guesses.append((token, forced))
        context += [token, *forced]
        if matcher.is_stopped() or matcher.is_accepting():
            break  # the answer may be complete: what follows is the end, not a guess
    if used:
        matcher.rollback(used)
    return guesses
