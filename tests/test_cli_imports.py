"""`wva --help` stays fast: building the parser (and every command's --help) imports neither pandas nor
anthropic. Run in a fresh interpreter, since this test process has imported both long before."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "anthropic")

CODE = """
import json, sys
from benchmarks.cli.main import build_parser
from benchmarks.cli import COMMANDS
parser = build_parser()
for argv in (["--help"], *([name.replace("_", "-"), "--help"] for name in COMMANDS)):
    try:
        parser.parse_args(argv)
    except SystemExit:
        pass
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))))
"""


def test_building_the_parser_imports_neither_pandas_nor_anthropic() -> None:
    done = subprocess.run([sys.executable, "-c", CODE, *HEAVY], capture_output=True, text=True, check=True,
                          timeout=120)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_check_sees_a_heavy_import() -> None:
    """The same check, with a command that does import pandas: the list is not empty by construction."""
    code = "import pandas\n" + CODE
    done = subprocess.run([sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, check=True,
                          timeout=120)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["pandas"]
