"""Keep secrets out of everything the project writes: error messages, traces, results."""

from __future__ import annotations

import os
import re

_KEY_PATTERN = re.compile(r"sk-(?:ant|proj|svcacct|admin)-[A-Za-z0-9_\-]{4,}")  # Anthropic's and OpenAI's key shapes
_SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")


def redact(text: str) -> str:
    """`text` with API keys (the environment's, and anything shaped like one) replaced."""
    for name in _SECRET_ENV:
        secret = os.environ.get(name)
        if secret and len(secret) >= 8 and secret in text:
            text = text.replace(secret, "[REDACTED]")
    return _KEY_PATTERN.sub("[REDACTED]", text)
