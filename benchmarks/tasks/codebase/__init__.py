"""A real Python project in a trial's folder, for any family that needs one (not a family itself): the tools on it
(`tools.py`), seeded one-line AST mutations (`mutate.py`), differential tests and their verifier (`check.py`,
`verify.py`), the cached catalogue of verified bugs in standard-library modules (`catalogue.py`), and the fixed
Agentless-style designs over the tools (`designs.py`). `bugfix` is the spec that uses them."""
