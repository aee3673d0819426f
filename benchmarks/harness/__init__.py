"""The harness: run a sweep of trials durably and write its tidy files.

A sweep is patterns × tasks × instances × trials on one model (`bench.run_bench`, configured by
`config.BenchConfig`). Each trial (`trial.py`) is one run of one pattern on one instance, scored by its
task; finished trials go to a journal as they end (`journal.py`), in this process or in shards
(`shards.py`, `ray_executor.py`), and the tidy files `runs.csv`, `events.jsonl`, `summary.csv` and
`manifest.json` are written from the journals at the end (`store.py`, `outputs.py`). What a sweep may do
with a folder that already holds trials is `resume.py`'s rule. The harness knows tasks and patterns; it
knows nothing of verdicts, studies, reports or the command line.
"""
