"""Names for what a page leaves unnamed, so that a step can say them.

- An element the page styles as clickable (a pointer cursor, or one its :hover style gives) but
  gives no role (an <a> with no href has none), nor holds a control of its own (a clickable list
  item, card, message row or word),
  is marked a button named by the first line of its text, else, for an icon (an image, a
  background or CSS content), its title, alt text, first class or id ("trash", "send reply"); one
  whose text is a row of inline parts ("Reply Forward") or a list of items is each part instead,
  and the textless icons inside a marked one are buttons of their own (MARK_CLICKABLE_JS, run in
  the page before each snapshot).
- A field or control with no accessible name, and no named control inside it, takes the short text
  right before it under the same parent (a label the page did not tie to it), or before its parent
  when it comes first there (a field in a table cell after its header cell), if that text has a
  letter and ends no sentence (a slider's "-1", an instruction above the form are no labels),
  else the short text right after it where the two are all their parent holds (a label under its
  field), else its place among all of its role on the page:
  "2nd textbox" (name_unnamed, on the snapshot).
"""

from __future__ import annotations

import re

MARK_CLICKABLE_JS = """() => {
  const controls = 'a[href],button,input,select,textarea,label,option,summary,[role]';  // an <a> with no href is no link
  const hovered = [];  // selectors whose :hover style alone shows the pointer (".controls span:hover")
  for (const sheet of document.styleSheets) {
    let rules = [];
    try { rules = Array.from(sheet.cssRules); } catch (e) { continue; }  // another origin's sheet
    for (const rule of rules)
      if (rule.selectorText && rule.style && rule.style.cursor === 'pointer' && rule.selectorText.includes(':hover'))
        hovered.push(...rule.selectorText.split(',').filter(s => s.includes(':hover')).map(s => s.replace(/:hover/g, '')));
  }
  const matches = (el, sel) => { try { return el.matches(sel); } catch (e) { return false; } };
  const pointer = el => getComputedStyle(el).cursor === 'pointer' || hovered.some(sel => matches(el, sel));
  const text = el => (el.innerText || '').trim().split('\\n')[0].trim();
  const said = el => text(el) || el.getAttribute('title') || el.getAttribute('alt')
    || (el.classList[0] || el.id || '').replace(/[-_]+/g, ' ').trim();
  const mark = el => {
    const name = said(el);
    if (!name) return 0;
    el.setAttribute('role', 'button');
    el.setAttribute('data-agentpair-marked', '');
    el.setAttribute('aria-label', name.slice(0, 60));
    return 1;
  };
  const icon = el => !text(el) && !el.children.length && el.getClientRects().length > 0 && (
    el.matches('img,svg') || el.hasAttribute('title') || getComputedStyle(el).backgroundImage !== 'none'
    || !['normal', 'none'].includes(getComputedStyle(el).content));
  let marked = 0;
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (el.matches(controls) || el.querySelector(controls) || !pointer(el)) continue;
    const parent = el.parentElement;
    if (parent && (parent.closest('[data-agentpair-marked]') || (pointer(parent) && parent.matches(controls))))
      continue;  // inside a marked clickable, or a control whose pointer it inherits (a menu item's icon)
    const texts = Array.from(el.children).filter(c => text(c));
    const part = c => getComputedStyle(c).display.startsWith('inline') || c.tagName === 'LI';
    if (texts.length >= 2 && texts.every(part)) {
      el.setAttribute('data-agentpair-split', '');  // a row of words, each its own click
      texts.forEach(c => { if (!c.querySelector(controls)) marked += mark(c); });
      continue;
    }
    if (!text(el) && !icon(el)) continue;
    marked += mark(el);
    for (const inner of el.querySelectorAll('*'))  // the icons inside it: actions of their own
      if (icon(inner)) marked += mark(inner);
  }
  return marked;
}"""
LINE = re.compile(r"""^(?P<lead>\s*- )(?P<quote>'?)(?P<role>[a-z]+)(?P<name> "(?:[^"\\]|\\.)*")?"""
                  r"(?P<rest>(?: \[[^\]]*\])*)'?(?P<tail>:.*)?$")
VALUE = re.compile(r'^\s*- (?:text|[a-z]+(?: \[[^\]]*\])*): (?P<value>.+)$')
LABEL_CHARS = 40


def name_unnamed(snapshot: str, interactive: set[str]) -> str:
    """The snapshot with names for its unnamed `interactive` elements (see the module's docstring);
    lines are otherwise unchanged."""
    lines = snapshot.splitlines()
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    matches = [LINE.match(line) for line in lines]
    numbered: dict[str, int] = {}
    out = list(lines)
    for i, match in enumerate(matches):
        if not match or match["quote"] or "[ref=" not in match["rest"] or "[aria-hidden]" in match["rest"]:
            continue
        role = match["role"]
        if role not in interactive:
            continue
        numbered[role] = numbered.get(role, 0) + 1  # its place among all of its role, named or not
        if match["name"] or _holds_named_control(matches, indents, i, interactive):
            continue
        name = (_label_before(lines, matches, indents, i, interactive)
                or _label_after(lines, matches, indents, i, interactive) or f"{ordinal(numbered[role])} {role}")
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        out[i] = f'{match["lead"]}{role} "{quoted}"{match["rest"]}{match["tail"] or ""}'
    return "\n".join(out)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _holds_named_control(matches: list[re.Match[str] | None], indents: list[int], i: int,
                         interactive: set[str]) -> bool:
    """A named interactive element other than an option sits under line i (a tab holding its link):
    that one is acted on. A list's options are what it is set to, not controls of their own."""
    for j in range(i + 1, len(matches)):
        if indents[j] <= indents[i]:
            return False
        if matches[j] and matches[j]["role"] in interactive - {"option"} and matches[j]["name"]:
            return True
    return False


def _label_after(lines: list[str], matches: list[re.Match[str] | None], indents: list[int], i: int,
                 interactive: set[str]) -> str:
    """The short text right after line i, where the two are all their parent holds (a label under its field)."""
    first = i == 0 or indents[i - 1] < indents[i]
    k = i + 1
    while k < len(lines) and indents[k] > indents[i]:
        k += 1
    alone = k + 1 >= len(lines) or indents[k + 1] < indents[i]
    if not first or not alone or k >= len(lines) or indents[k] != indents[i]:
        return ""
    return _label_text(lines[k], matches[k], interactive)


def _label_text(line: str, match: re.Match[str] | None, interactive: set[str]) -> str:
    """A line's text as a field's label: short, with a letter, ending no sentence; else ""."""
    if match and match["role"] in interactive:
        return ""
    value = VALUE.match(line)
    text = value["value"] if value else match["name"] if match and match["name"] else ""
    text = " ".join(text.strip().strip("'\"").split())
    return text if len(text) <= LABEL_CHARS and any(c.isalpha() for c in text) and not text.endswith(".") else ""


def _label_before(lines: list[str], matches: list[re.Match[str] | None], indents: list[int], i: int,
                  interactive: set[str]) -> str:
    """The short text right before line i: its sibling's, or, when it is its parent's first child (a
    field in a table cell), the text of the sibling before that parent (the row's header cell)."""
    for _ in range(2):
        j = i - 1
        while j >= 0 and indents[j] > indents[i]:
            j -= 1
        if j < 0:
            return ""
        if indents[j] < indents[i]:  # i is the first child of j: look before j
            i = j
            continue
        if j + 1 < len(lines) and indents[j + 1] > indents[j]:
            return ""  # a container is no label
        return _label_text(lines[j], matches[j], interactive)
    return ""
