"""The manual's content as a list of blocks, rendered once to Markdown and once to HTML.

Text inside blocks uses a small inline Markdown: `code`, **bold**, *emphasis* and
[text](#anchor) links. `inline_html` turns it into HTML; the Markdown renderer copies it.
`parse_markdown` reads the subset that proofs/engine/compositional.py's soundness argument is
written in (headings, paragraphs, numbered and bulleted lists, pipe tables) into blocks.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Para:
    text: str
    css: str = ""  # an HTML class, e.g. "lead" or "note"


@dataclass
class Items:
    items: list
    ordered: bool = False


@dataclass
class Table:
    header: list
    rows: list
    css: str = ""
    anchors: list = field(default_factory=list)  # an id per row (HTML), or ""


@dataclass
class Code:
    text: str


@dataclass
class Details:
    """Folded in HTML (open when `open`), a bold line and the blocks in Markdown."""

    summary: str
    blocks: list
    open: bool = False


@dataclass
class Raw:
    """Format-specific content: `html` for the page, `markdown` for the .md file."""

    html: str
    markdown: str


_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")


def inline_html(text: str) -> str:
    """Inline Markdown to HTML: links first (their labels may hold code), then code spans,
    which are taken literally, then bold and emphasis."""
    out, pos = [], 0
    for match in _LINK.finditer(text):
        out.append(_spans(text[pos : match.start()]))
        out.append(f'<a href="{html.escape(match.group(2))}">{_spans(match.group(1))}</a>')
        pos = match.end()
    out.append(_spans(text[pos:]))
    return "".join(out)


def _spans(text: str) -> str:
    parts = _CODE.split(text)
    out = []
    for k, part in enumerate(parts):
        if k % 2:
            out.append(f"<code>{html.escape(part, quote=False)}</code>")
            continue
        escaped = html.escape(part, quote=False)
        escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
        escaped = _EM.sub(r"<em>\1</em>", escaped)
        out.append(escaped)
    return "".join(out)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def parse_markdown(text: str, shift: int = 0) -> list:
    """Blocks from a Markdown subset; heading levels are shifted by `shift`."""
    blocks, paragraph = [], []
    lines = text.splitlines()

    def flush():
        if paragraph:
            blocks.append(Para(" ".join(paragraph)))
            paragraph.clear()

    k = 0
    while k < len(lines):
        line = lines[k].rstrip()
        if not line.strip():
            flush()
        elif line.startswith("#"):
            flush()
            hashes = len(line) - len(line.lstrip("#"))
            title = line[hashes:].strip()
            blocks.append(Heading(hashes + shift, title, slug(title)))
        elif line.startswith("|"):
            flush()
            rows = []
            while k < len(lines) and lines[k].startswith("|"):
                cells = [cell.strip() for cell in lines[k].strip().strip("|").split("|")]
                if not all(set(cell) <= set("-: ") for cell in cells):
                    rows.append(cells)
                k += 1
            blocks.append(Table(rows[0], rows[1:]))
            continue
        elif re.match(r"(\d+\.|-) ", line):
            flush()
            ordered = line[0].isdigit()
            items = []
            while k < len(lines) and lines[k].strip():
                current = lines[k].rstrip()
                if re.match(r"(\d+\.|-) ", current):
                    items.append(current.split(" ", 1)[1])
                else:
                    items[-1] += " " + current.strip()
                k += 1
            blocks.append(Items(items, ordered))
            continue
        else:
            paragraph.append(line.strip())
        k += 1
    flush()
    return blocks
