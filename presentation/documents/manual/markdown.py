"""Blocks to Markdown (GitHub-flavoured): docs/vredmax.vs.md."""

from __future__ import annotations

from vredmax.presentation.documents.manual.blocks import Code, Details, Heading, Items, Para, Raw, Table


def _cell(text) -> str:
    """A table cell; a list of strings is one line each."""
    if isinstance(text, list):
        return "<br>".join(_cell(line) for line in text)
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(blocks: list) -> str:
    out: list[str] = []
    for block in blocks:
        out += _block(block) + [""]
    return "\n".join(out).rstrip() + "\n"


def _block(block) -> list[str]:
    if isinstance(block, Heading):
        anchor = f'<a id="{block.anchor}"></a>\n' if block.anchor else ""
        return [f"{anchor}{'#' * block.level} {block.text}"]
    if isinstance(block, Para):
        return [block.text]
    if isinstance(block, Items):
        return [f"{k}. {item}" if block.ordered else f"- {item}" for k, item in enumerate(block.items, 1)]
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_cell(h) for h in block.header) + " |", "|" + "---|" * len(block.header)]
        for k, row in enumerate(block.rows):
            cells = [_cell(c) for c in row]
            if block.anchors and block.anchors[k]:
                cells[0] = f'<a id="{block.anchors[k]}"></a>{cells[0]}'
            lines.append("| " + " | ".join(cells) + " |")
        return lines
    if isinstance(block, Code):
        return ["```", block.text, "```"]
    if isinstance(block, Details):
        lines = [f"**{block.summary}**", ""]
        for inner in block.blocks:
            lines += _block(inner) + [""]
        return lines[:-1]
    if isinstance(block, Raw):
        return [block.markdown] if block.markdown else []
    raise TypeError(f"unknown block {block!r}")
