"""The criterion: from a results folder to a verdict per task, with its intervals and the reasons.

`read.py` reads a folder's runs; `comparison.py`, `bounds.py`, `paired.py` and `intervals.py` give the
paired intervals (success difference, cost ratio); `verdict.py`, `rule.py` and `deciding.py` apply the
rule; `tradeoff.py` prices an extra success; `sequential.py` and `spending.py` decide at interim looks;
`drawability/` measures whether the agent's graph can be drawn in advance; `table.py` assembles
`criterion.csv`; `render.py` is the one place a criterion row becomes text. Nothing here runs a model.
"""
