"""The report: a results folder turned into `report.md` and its charts (`write.py`, `charts/`), and what
prompt caching saved (`cache_costs.py`). It reads the criterion and the studies; it runs nothing.
"""
