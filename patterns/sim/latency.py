"""SimModel's latency model: how long one call takes, in seconds.

    latency = ttft_s + input_tokens / prefill_tps + output_tokens / decode_tps

Defaults are round figures of the order a hosted mid-size model shows: 0.4 s to the first
token, 5,000 prompt tokens/s of prefill, 80 output tokens/s of decoding. They set the
*shape* (long prompts cost time, long answers cost more), not any real model's numbers.
Failed calls take modelled time too: an immediate rejection (400, 429, 529) costs
`REJECT_S`, a 500 costs the time to first token, a timeout costs the client's timeout.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TTFT_S = 0.4
DEFAULT_PREFILL_TPS = 5000.0
DEFAULT_DECODE_TPS = 80.0
REJECT_S = 0.05  # a request refused before any generation: one round trip


@dataclass(frozen=True, slots=True)
class Latency:
    ttft_s: float = DEFAULT_TTFT_S
    prefill_tps: float = DEFAULT_PREFILL_TPS
    decode_tps: float = DEFAULT_DECODE_TPS

    def __post_init__(self) -> None:
        if self.ttft_s < 0:
            raise ValueError(f"ttft_s must be >= 0, got {self.ttft_s!r}")
        if self.prefill_tps <= 0 or self.decode_tps <= 0:
            raise ValueError(f"prefill_tps and decode_tps must be > 0, got {self.prefill_tps!r}, {self.decode_tps!r}")

    def seconds(self, input_tokens: int, output_tokens: int) -> float:
        return self.ttft_s + input_tokens / self.prefill_tps + output_tokens / self.decode_tps
