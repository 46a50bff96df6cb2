"""The generated documents: `report` runs the project's obligations and writes
`docs/SEMANTICS.md`, `docs/SEMANTICS.json` and the manual page (`manual/`: its content, the
Markdown and HTML renderers and the animation)."""
