"""What every request of a run carries beyond its content (`RequestOptions`): settings, not bounds.

`Limits` says how much a run may spend; these say how each call is sent:
- `max_tokens`: the `max_tokens` sent with each call (default 1024; the loop raises it on a cut);
- `prompt_cache`: send `cache_control` breakpoints with every call (`patterns.caching`). On by default,
  as every production agent runs; `False` (`--prompt-cache off`) sends none.

`on_off` and `parse_on_off` are the one spelling of a switch as text (command lines, the manifest).
"""

from __future__ import annotations

from dataclasses import dataclass

ON, OFF = "on", "off"


@dataclass(frozen=True, slots=True)
class RequestOptions:
    max_tokens: int = 1024
    prompt_cache: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"RequestOptions.max_tokens must be an integer >= 1, got {self.max_tokens!r}")
        if not isinstance(self.prompt_cache, bool):
            raise ValueError(f"RequestOptions.prompt_cache must be True or False, got {self.prompt_cache!r}")


def on_off(flag: bool) -> str:
    """A switch as the manifest and the command line write it."""
    return ON if flag else OFF


def parse_on_off(text: str) -> bool:
    """`on`/`off` (any case) as a switch; a ValueError for anything else."""
    value = str(text).strip().lower()
    if value not in (ON, OFF):
        raise ValueError(f"expected {ON} or {OFF}, got {text!r}")
    return value == ON
