"""The tools of the `orders` example: one lookup and four actions, each reading `records.json` next to this file.

Each action returns a confirmation code (`RF-`, `RS-`, `CX-`, `ES-` and the order's digits), which the reply must
quote; an unknown order raises, which the model sees as an error result. The four actions differ only in name,
summary and code, so one factory makes them (`_action`): each is still a plain typed, documented function of this
module, which is what the task file's loader offers as a tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

RECORDS = json.loads((Path(__file__).parent / "records.json").read_text(encoding="utf-8"))


def _order(order_id: str) -> str:
    key = order_id.strip().upper()
    if key not in RECORDS:
        raise KeyError(f"no order {order_id!r}: order numbers look like ORD-12345")
    return key


def get_order(order_id: str) -> str:
    """Look up an order: its item and status.

    Args:
        order_id: the order number, like ORD-12345
    """
    key = _order(order_id)
    return json.dumps({"order": key, **RECORDS[key]})


def _action(name: str, summary: str, confirmation: str) -> Callable[[str], str]:
    """One of the four actions: the same typed, documented function but for its name, its one-line summary (the
    model reads it to pick the action) and its confirmation (`{}`: the order's digits)."""

    def act(order_id: str) -> str:
        return confirmation.format(_order(order_id)[4:])

    act.__name__ = act.__qualname__ = name
    act.__doc__ = f"{summary}\n\nArgs:\n    order_id: the order number, like ORD-12345\n"
    return act


refund_order = _action("refund_order", "Refund an order that arrived damaged.", "Refund RF-{} issued")
reship_order = _action("reship_order", "Ship an order again when the carrier lost it.", "Reshipment RS-{} booked")
cancel_order = _action("cancel_order", "Cancel an order that has not shipped yet.", "Cancellation CX-{} confirmed")
escalate = _action("escalate", "Hand a disputed order to a senior agent.", "Escalation ES-{} opened")
