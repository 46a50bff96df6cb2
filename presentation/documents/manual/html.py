"""Blocks to one self-contained HTML page: inline CSS, JavaScript and SVG, no network.

The page reads fully without JavaScript (every animation shows its final values and the list
of its steps); page.js adds the step-by-step display and the controls.
"""

from __future__ import annotations

import html
from importlib import resources

from vredmax.presentation.documents.manual.blocks import (
    Code,
    Details,
    Heading,
    Items,
    Para,
    Raw,
    Table,
    inline_html,
)


def _asset(name: str) -> str:
    return resources.files("vredmax.presentation.documents.manual").joinpath(name).read_text(encoding="utf-8")


def render(blocks: list, title: str) -> str:
    toc = [b for b in blocks if isinstance(b, Heading) and b.level == 2]
    nav = "".join(f'<li><a href="#{b.anchor}">{inline_html(b.text)}</a></li>' for b in toc)
    body = "\n".join(_block(b) for b in blocks)
    nav_html = f'<nav class="toc" aria-label="Contents"><p>Contents</p><ol>{nav}</ol></nav>' if toc else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="vredmax report">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{_asset('page.css')}</style>\n</head>\n<body>\n"
        f'<div class="layout">{nav_html}<main id="main">\n{body}\n</main></div>\n'
        f"<script>\n{_asset('page.js')}</script>\n</body>\n</html>\n"
    )


def _cell(content) -> str:
    """A table cell; a list of strings is one line each."""
    if isinstance(content, list):
        return "<br>".join(inline_html(line) for line in content)
    return inline_html(str(content))


def _block(block) -> str:
    if isinstance(block, Heading):
        ident = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        link = (
            f' <a class="hl" href="#{html.escape(block.anchor)}" aria-label="Link to this section">#</a>'
            if block.anchor and block.level > 1
            else ""
        )
        return f"<h{block.level}{ident}>{inline_html(block.text)}{link}</h{block.level}>"
    if isinstance(block, Para):
        css = f' class="{block.css}"' if block.css else ""
        return f"<p{css}>{inline_html(block.text)}</p>"
    if isinstance(block, Items):
        tag = "ol" if block.ordered else "ul"
        return f"<{tag}>" + "".join(f"<li>{inline_html(i)}</li>" for i in block.items) + f"</{tag}>"
    if isinstance(block, Table):
        head = "".join(f'<th scope="col">{inline_html(h)}</th>' for h in block.header)
        rows = []
        for k, row in enumerate(block.rows):
            ident = f' id="{block.anchors[k]}"' if block.anchors and block.anchors[k] else ""
            rows.append(f"<tr{ident}>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>")
        css = f' class="{block.css}"' if block.css else ""
        return (
            f'<div class="tablewrap" tabindex="0" role="region" aria-label="table"><table{css}>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    if isinstance(block, Code):
        return f"<pre><code>{html.escape(block.text, quote=False)}</code></pre>"
    if isinstance(block, Details):
        inner = "\n".join(_block(b) for b in block.blocks)
        return f"<details{' open' if block.open else ''}><summary>{inline_html(block.summary)}</summary>{inner}</details>"
    if isinstance(block, Raw):
        return block.html
    raise TypeError(f"unknown block {block!r}")
