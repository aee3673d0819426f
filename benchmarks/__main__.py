"""`python -m benchmarks`: the `wva` command line."""

from benchmarks.cli import main

raise SystemExit(main())
