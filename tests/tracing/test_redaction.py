"""Redaction finds a secret or key in every spelling the standard encoders give it, generated (urllib.parse
under many safe sets, html, json, base64 at every alignment, repr), and rewrites nothing else."""

from __future__ import annotations

import re

import pytest

from agentpair.bench.encodings import embedded_base64, encodings, hidden_in_base64, safe_sets
from agentpair.tracing.redaction import REDACTED, Redactor
from agentpair.tools.base import mask_secrets

# a space, /, &, %, +, quotes, a backslash, accents, CJK and a character beyond U+FFFF among them
SECRETS = ['Open Sesame/42 "vault" & <key>', "p@ss w/rd%20+&=;'é", "Grüße/€ 100% sûr", "汉字 密码/&?#",
           "pw🔑/+x y\\z", "Tr0ub4dor&3 horse/!\"", "a+b c=d&e", 'C:\\\\share\\\\v "q"']


def test_the_generated_spellings_include_the_ones_that_leaked_before() -> None:
    """encodeURI keeps / and &; quote(safe='/') keeps /; PHP's json_encode escapes / as \\/."""
    value = "S3cr3t/Pa ss&x=1"
    assert len(safe_sets()) > 30
    assert {"S3cr3t/Pa%20ss&x=1", "S3cr3t/Pa%20ss%26x%3D1", "S3cr3t\\/Pa ss&x=1"} <= encodings(value)


@pytest.mark.parametrize("secret", SECRETS)
def test_every_spelling_of_a_secret_becomes_its_placeholder(secret: str) -> None:
    redactor = Redactor({"password": secret})
    forms = encodings(secret)
    assert len(forms) > 20
    for form in forms:
        text = f'GET /profile/{form}?next=/home {{"pw": "{form}"}}'
        redacted = redactor.text(text)
        assert form not in redacted and redacted.count("{{secret:password}}") == 2, (form, redacted)
        assert redacted == 'GET /profile/{{secret:password}}?next=/home {"pw": "{{secret:password}}"}' or \
            form.startswith(('"', "\\")), (form, redacted)  # all of it, nothing around it (bar a JSON form's quotes)


@pytest.mark.parametrize("secret", SECRETS)
def test_an_api_key_is_redacted_in_every_spelling_too(secret: str) -> None:
    key = "sk-" + secret
    words = re.findall("[A-Za-z0-9]{2,}", secret)
    for form in encodings(key):
        redacted = Redactor(keys=[key]).text(f"error: rejected {form}.")
        assert REDACTED in redacted and not any(word in redacted for word in words), (form, redacted)


@pytest.mark.parametrize("secret", SECRETS)
def test_base64_holding_the_secret_at_any_offset_decodes_to_no_trace_of_it(secret: str) -> None:
    for blob in embedded_base64(secret):
        assert hidden_in_base64(blob, secret) == 1  # the check below can find it
        redacted = Redactor({"password": secret}).text(f"Authorization: Basic {blob}")
        assert "{{secret:password}}" in redacted and hidden_in_base64(redacted, secret) == 0, blob


def test_text_near_a_secret_is_left_as_it_is() -> None:
    secret = SECRETS[0]
    redactor = Redactor({"password": secret})
    near = [secret.replace("42", "43"), secret[:-1], secret.upper(), "Open Sesame", "vault & key"]
    for text in near + [form.replace("42", "43") for form in sorted(encodings(secret)) if "42" in form]:
        assert redactor.text(text) == text
    assert mask_secrets("no secret here", {"password": secret}) == "no secret here"


def test_a_short_value_is_replaced_only_as_a_whole_token() -> None:
    redactor = Redactor({"pin": "4 2"}, ["k&y"])
    assert redactor.text("pin=4+2 and 4%202") == "pin={{secret:pin}} and {{secret:pin}}"
    assert redactor.text("key k%26y; monkey k&yak") == f"key {REDACTED}; monkey k&yak"


def test_a_long_run_of_backslashes_is_searched_at_once() -> None:
    """A secret holding runs of backslashes against a page full of them: no retrying every split."""
    import time

    secret = "ab\\\\\\cd\\\\\\ef-long"
    text = ("ab" + "\\" * 300 + "cd" + "\\" * 300 + "ef-lonX long ") * 5
    started = time.perf_counter()
    assert Redactor({"p": secret}).text(text) == text
    assert time.perf_counter() - started < 2.0
    assert Redactor({"p": secret}).text(f"x {secret.replace(chr(92), chr(92) * 2)} y") == "x {{secret:p}} y"
