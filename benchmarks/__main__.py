"""`python -m benchmarks`: the `wva` command line."""

from benchmarks.cli.main import main

if __name__ == "__main__":  # not when a `--workers` shard process (spawn) imports this module as its main
    raise SystemExit(main())
