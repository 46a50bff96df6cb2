"""Claims about vredmax.vs: the catalogue of wrong beliefs and their refutation (`claims`,
`refute`), the claim language (`claim_language`), a user's question asked of the solver
(`ask`), and a counterexample turned into a ready pytest test (`emit_test`). Uses the engine
only."""
