"""The manual page of vredmax.vs (docs/vredmax.vs.md and docs/vredmax.vs.html), generated from
the proof document, the encoder, the trap rules, the profiles and the executable model.

    render(doc) -> {"vredmax.vs.md": text, "vredmax.vs.html": text}
    case_page(run, case) -> HTML of one case's animation (`vredmax explain --html`)
"""

from __future__ import annotations

from vredmax.presentation.documents.manual import content, html, markdown

MARKDOWN, HTML = "vredmax.vs.md", "vredmax.vs.html"


def render(doc: dict) -> dict[str, str]:
    blocks = content.page(doc)
    return {MARKDOWN: markdown.render(blocks), HTML: html.render(blocks, content.TITLE)}


def case_page(run, case: dict | None = None) -> str:
    return html.render(content.explain_page(run, case), f"{run.asm}: decode and execute")
