"""The browser's actions as Tools: an argument model each (what the executor fills) and the code
that carries it out on the Browser's current page.
"""

from __future__ import annotations

import asyncio

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from pydantic import BaseModel, Field

from agentpair.tools.base import SECRET_PLACEHOLDER, BrowserError, Tool, ToolResult, fill_secrets
from agentpair.tools.field_formats import field_value
from agentpair.tools.policy import resolve_url

if TYPE_CHECKING:  # the browser imports these actions when it hands out its tools
    from agentpair.tools.browser import Browser

REF = Field(description="the element's ref from the latest observation, e.g. e7")
VERBATIM = {"x-verbatim": True}  # the step asking for this call states the value word for word


def ref_of(*roles: str) -> Any:
    """A ref field that names only elements of these roles (`x-roles` in its JSON schema), so an
    executor can be offered only the fitting elements of a page."""
    return Field(description=f"the ref of a {' or '.join(roles)} from the latest observation, e.g. e7",
                 json_schema_extra={"x-roles": list(roles)})

FIELD_INFO_JS = """e => ({password: (e.type || '').toLowerCase() === 'password', locked: !!(e.readOnly || e.disabled),
  picked: !!e.readOnly && !e.disabled,
  kind: e.tagName === 'INPUT' ? (e.type || 'text') : '',
  label: e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].innerText.trim() : '')
    || e.placeholder || e.name || e.id || e.tagName.toLowerCase()})"""
OPTIONS_JS = ("e => e.tagName === 'SELECT' ? {multiple: e.multiple, options: Array.from(e.options, o => [o.value, "
              "o.label.trim()]), chosen: Array.from(e.selectedOptions, o => o.value)} : null")
VALUE_JS = "e => ('value' in e && e.tagName !== 'BUTTON') ? String(e.value) : e.innerText"
SCROLL_JS = {
    "down": "window.scrollBy(0, window.innerHeight * 0.8)",
    "up": "window.scrollBy(0, -window.innerHeight * 0.8)",
    "top": "window.scrollTo(0, 0)",
    "bottom": "window.scrollTo(0, document.body.scrollHeight)",
}
READ_CHARS = 8000


class GotoArgs(BaseModel):
    url: str = Field(description="absolute URL, or a path relative to the current page",
                     json_schema_extra={**VERBATIM, "x-links": True})  # or a link's target


class ClickArgs(BaseModel):
    ref: str = REF


class TypeArgs(BaseModel):
    ref: str = ref_of("textbox", "searchbox", "combobox", "spinbutton", "slider")
    text: str = Field(description="text to put in the field (replaces its content); secrets as {{secret:name}}",
                      json_schema_extra=VERBATIM)
    submit: bool = Field(False, description="press Enter afterwards")


class SelectArgs(BaseModel):
    ref: str = ref_of("combobox", "listbox")
    option: str = Field(description="the option's visible label (or its value)",
                        json_schema_extra={**VERBATIM, "x-options": True})  # one the page shows, if named


class CheckArgs(BaseModel):
    ref: str = ref_of("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")
    on: bool = Field(True, description="true to check, false to uncheck",
                     json_schema_extra={"x-switch": True})  # as the step's verb says (check, untick ...)


class PressArgs(BaseModel):
    key: str = Field(description="a key or chord, e.g. Enter, Tab, Escape, Control+A")


class ScrollArgs(BaseModel):
    direction: Literal["down", "up", "top", "bottom"] = "down"


class NoArgs(BaseModel):
    pass


class WaitForArgs(BaseModel):
    text: str = Field("", description="visible text to wait for (or leave empty and give ref)")
    ref: str = Field("", description="element ref to wait for (or leave empty and give text)")
    timeout_ms: int = Field(5000, ge=100, le=60000)


class ReadArgs(BaseModel):
    ref: str = Field("", description="element ref to read; empty reads the whole page")


async def goto(browser: Browser, url: str) -> ToolResult:
    async def act() -> str:
        target = resolve_url(url, browser.page.url)
        refusal = browser.policy.refusal(target)
        if refusal:
            browser.record("file_url" if target.startswith("file:") else "navigation", target, refusal)
            raise BrowserError(f"refused to open {target}: {refusal}")
        try:
            await browser.page.goto(target, wait_until="load", timeout=browser.navigation_timeout_ms)
        except PlaywrightTimeout:
            await browser.stop_loading()
            raise BrowserError(
                f"timed out after {browser.navigation_timeout_ms / 1000:g} s waiting for {target} "
                "to finish loading; loading was stopped"
            ) from None
        return f"opened {browser.page.url}"

    return await browser.run_action("goto", act)


async def click(browser: Browser, ref: str) -> ToolResult:
    async def act() -> str:
        locator = await browser.locate(ref)
        await locator.hover()  # a look the pointer swaps in (a hover image) settles before the press lands
        await locator.click()
        return f"clicked {ref}"

    return await browser.run_action("click", act)


async def type_text(browser: Browser, ref: str, text: str, submit: bool = False) -> ToolResult:
    async def act() -> str:
        locator = await browser.locate(ref)
        info = await locator.evaluate(FIELD_INFO_JS)
        for name in SECRET_PLACEHOLDER.findall(text):
            if name in browser.policy.secrets and not browser.policy.secret_allowed_in(name, info["password"]):
                detail = f"secret {name!r} may only be typed into a password field, not {info['label']!r}"
                browser.record("secret", browser.page.url, detail)
                raise BrowserError(f"refused: {detail}")
        if info["picked"]:  # a read-only field: a picker it opens when clicked (a calendar) sets it
            await locator.click()
            raise BrowserError(f"the {info['label']!r} field is read-only: it cannot be typed into; clicked it "
                               "to open what sets it (a picker)")
        if info["locked"]:  # fail now, not after the action timeout: such a field is set another way
            raise BrowserError(f"the {info['label']!r} field is disabled: it cannot be typed into "
                               "(another control sets it)", disabled=True)
        try:
            value = fill_secrets(text, browser.policy.secrets)
        except KeyError as exc:
            raise BrowserError(str(exc.args[0])) from None
        await locator.fill(field_value(info["kind"], value))  # "9:37 PM" -> "21:37" in a time field
        if info["password"]:
            browser.remember_password(value)
        if submit:
            await locator.press("Enter")
        if info["password"] and value == text:
            return f"typed {len(text)} characters into password field {ref}"
        return f"typed {text!r} into {ref}" + (" and pressed Enter" if submit else "")

    return await browser.run_action("type", act)


async def select(browser: Browser, ref: str, option: str) -> ToolResult:
    """Choose the option; in a list that takes several (a multiple select), add it to those chosen,
    as a ctrl-click would."""
    async def act() -> str:
        locator = await browser.locate(ref)
        box = await locator.evaluate(OPTIONS_JS)
        if box is None:
            raise BrowserError(f"{ref} is not a select box; click it and then click the option instead")
        wanted = option.strip().casefold()
        matches = [v for v, label in box["options"] if wanted in (label.casefold(), v.casefold())]
        if not matches:
            labels = ", ".join(repr(label) for _, label in box["options"])
            raise BrowserError(f"{ref} has no option {option!r}; its options are {labels}")
        chosen = list(dict.fromkeys([*box["chosen"], matches[0]])) if box["multiple"] else matches[0]
        await locator.select_option(value=chosen)
        return f"selected {option!r} in {ref}"

    return await browser.run_action("select", act)


async def check(browser: Browser, ref: str, on: bool = True) -> ToolResult:
    async def act() -> str:
        await (await browser.locate(ref)).set_checked(on)
        return f"{'checked' if on else 'unchecked'} {ref}"

    return await browser.run_action("check", act)


async def press(browser: Browser, key: str) -> ToolResult:
    async def act() -> str:
        await browser.page.keyboard.press(key)
        return f"pressed {key}"

    return await browser.run_action("press", act)


async def scroll(browser: Browser, direction: str = "down") -> ToolResult:
    async def act() -> str:
        await browser.page.evaluate(SCROLL_JS[direction])
        return f"scrolled {direction}"

    return await browser.run_action("scroll", act)


async def go_back(browser: Browser) -> ToolResult:
    async def act() -> str:
        before = browser.page.url
        try:
            response = await browser.page.go_back(wait_until="load")
        except PlaywrightError as exc:
            if "ERR_ABORTED" not in str(exc) or browser.page.url != before:
                raise
            await asyncio.sleep(0.2)  # a navigation we abandoned was still unwinding: try once more
            response = await browser.page.go_back(wait_until="load")
        if browser.page.url == "about:blank" != before:
            await browser.page.go_forward(wait_until="load")  # the blank tab a run starts from
            response = None
        if response is None and browser.page.url == before:
            raise BrowserError("there is no previous page to go back to")
        return f"went back to {browser.page.url}"

    return await browser.run_action("go_back", act)


async def wait_for(browser: Browser, text: str = "", ref: str = "", timeout_ms: int = 5000) -> ToolResult:
    async def act() -> str:
        if bool(text) == bool(ref):
            raise BrowserError("wait_for needs exactly one of text or ref")
        locator = browser.page.get_by_text(text).first if text else browser.page.locator(f"aria-ref={ref}")
        try:
            await locator.wait_for(state="visible", timeout=timeout_ms)
        except PlaywrightTimeout:
            await browser.stop_loading()
            raise BrowserError(f"{text or ref!r} did not appear within {timeout_ms} ms") from None
        return f"{text or ref!r} is visible"

    return await browser.run_action("wait_for", act, mutates=False)


async def read(browser: Browser, ref: str = "") -> ToolResult:
    async def act() -> str:
        if ref:
            content = await (await browser.locate(ref)).evaluate(VALUE_JS)
        else:
            content = await browser.page.locator("body").inner_text()
        content = browser.hide(content, await browser.password_values())
        return content if len(content) <= READ_CHARS else content[:READ_CHARS] + "…"

    return await browser.run_action("read", act, mutates=False)


def _tool(name: str, description: str, args_model: type[BaseModel], fn: Callable[..., Awaitable[ToolResult]], browser: Browser) -> Tool:
    async def run(args: BaseModel) -> ToolResult:
        try:
            return await fn(browser, **args.model_dump())
        except PlaywrightError as exc:  # the browser itself went away
            return ToolResult(tool=name, ok=False, error=f"browser failure: {exc}")

    return Tool(name=name, description=description, args_model=args_model, run=run)


def build_tools(browser: Browser) -> list[Tool]:
    specs = [
        ("goto", "Open a URL (only allowed origins can be reached).", GotoArgs, goto),
        ("click", "Click the element with this ref.", ClickArgs, click),
        ("type", "Replace a field's text; {{secret:name}} is filled in at typing time.", TypeArgs, type_text),
        ("select", "Choose an option of a select box by its label.", SelectArgs, select),
        ("check", "Check or uncheck a checkbox, or pick a radio button.", CheckArgs, check),
        ("press", "Press a key on the focused element.", PressArgs, press),
        ("scroll", "Scroll the page.", ScrollArgs, scroll),
        ("go_back", "Go back to the previous page.", NoArgs, go_back),
        ("wait_for", "Wait until a text or an element is visible.", WaitForArgs, wait_for),
        ("read", "Read an element's text or value, or the whole page's text.", ReadArgs, read),
    ]
    return [_tool(name, desc, model, fn, browser) for name, desc, model, fn in specs]
