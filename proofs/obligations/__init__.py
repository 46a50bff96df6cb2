"""The project's own proofs: the obligations (`catalogue`), named like
`vredmax.sew16.vl0_preserves_vd`, that `vredmax prove` and `vredmax report` run at every
configuration. Uses the engine only."""
