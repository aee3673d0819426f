"""`wva sim-server` for real: a subprocess on port 0, its URL read from stdout, one SDK call, Ctrl-C.

The server options `slow_s` and `require_api_key` go through `--knob` next to SimModel's knobs,
and reach the server: a wrong key is a 401, the right one is answered `slow_s` late (every call
is an injected timeout here). The key given on the command line is never printed.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anthropic
import pytest

from benchmarks.cli.main import main
from patterns.model import AnthropicModel

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-ant-canary-cli-server-0123456789"
URL_LINE = re.compile(r"^sim server listening on (http://127\.0\.0\.1:(\d+))\s")

pytestmark = pytest.mark.timeout(60)


def start(*knobs: str) -> tuple[subprocess.Popen[str], queue.Queue[str | None], queue.Queue[str | None]]:
    """The server as a user starts it; its stdout and stderr lines arrive on two queues."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    argv = [sys.executable, "-m", "benchmarks", "sim-server", "--port", "0"]
    for knob in knobs:
        argv += ["--knob", knob]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()

    def pump(stream: Any, lines: queue.Queue[str | None]) -> None:  # threads, so that reading can time out
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, args=(proc.stdout, out), daemon=True).start()
    threading.Thread(target=pump, args=(proc.stderr, err), daemon=True).start()
    return proc, out, err


def next_line(lines: queue.Queue[str | None], timeout: float = 30.0) -> str | None:
    return lines.get(timeout=timeout)


def rest(lines: queue.Queue[str | None]) -> str:
    """Every line up to the end of the stream (call it once the process has exited)."""
    got = []
    while (line := next_line(lines)) is not None:
        got.append(line)
    return "".join(got)


def call(url: str, key: str) -> Any:
    async def main() -> Any:
        model = AnthropicModel("claude-sonnet-4-5", base_url=url, api_key=key)
        try:
            return await model.create(max_tokens=64, messages=[{"role": "user", "content": "hello"}])
        except anthropic.APIError as exc:
            return exc
        finally:
            await model.aclose()

    return asyncio.run(main())


def test_sim_server_on_port_0_serves_one_sdk_call_then_stops_on_ctrl_c() -> None:
    proc, out, err = start(f"require_api_key={KEY}", "slow_s=0.3", "timeout_rate=1.0", "seed=7")
    try:
        first = next_line(out)
        assert first is not None, f"the server exited with {proc.wait()}"
        match = URL_LINE.match(first)
        assert match, first
        url, port = match.group(1), int(match.group(2))
        assert port > 0 and f"export ANTHROPIC_BASE_URL={url}" in first
        assert f"export OPENAI_BASE_URL={url}/v1)" in first  # the base an OpenAI client needs, named too

        denied = call(url, "sk-ant-canary-not-the-key")
        assert isinstance(denied, anthropic.AuthenticationError) and denied.status_code == 401

        reply = call(url, KEY)  # timeout_rate=1.0: served slow_s late, within the SDK's own timeout
        assert isinstance(reply, anthropic.types.Message), reply
        assert reply.content[0].text == "Answer: hello" and reply.model == "claude-sonnet-4-5"

        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
        stdout, stderr = first + rest(out), rest(err)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "sim server stopped" in stdout and "Traceback" not in stdout + stderr
    assert "faults injected: APITimeoutError=1" in stdout  # the call above was the timeout fault, served late
    assert KEY not in stdout + stderr


@pytest.mark.parametrize(("knob", "says"), [
    ("slow_s=-1", "slow_s must be >= 0"),
    ("slow_s=soon", "bad value 'soon' for option 'slow_s'"),
    ("require_api_key_typo=x", "unknown sim knob 'require_api_key_typo'"),
])
def test_a_bad_server_option_is_one_usage_line_before_anything_is_served(
    capsys: pytest.CaptureFixture[str], knob: str, says: str
) -> None:
    status = main(["sim-server", "--port", "0", "--knob", knob])  # the real server module: nothing is faked
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.startswith("wva: error: ") and says in err
    assert len(err.splitlines()) == 1
