"""The tools of the `orders` example: one lookup and four actions, each reading `records.json` next to this file.

Each action returns a confirmation code (`RF-`, `RS-`, `CX-`, `ES-` and the order's digits), which the reply must
quote; an unknown order raises, which the model sees as an error result.
"""

from __future__ import annotations

import json
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


def refund_order(order_id: str) -> str:
    """Refund an order that arrived damaged.

    Args:
        order_id: the order number, like ORD-12345
    """
    return f"Refund RF-{_order(order_id)[4:]} issued"


def reship_order(order_id: str) -> str:
    """Ship an order again when the carrier lost it.

    Args:
        order_id: the order number, like ORD-12345
    """
    return f"Reshipment RS-{_order(order_id)[4:]} booked"


def cancel_order(order_id: str) -> str:
    """Cancel an order that has not shipped yet.

    Args:
        order_id: the order number, like ORD-12345
    """
    return f"Cancellation CX-{_order(order_id)[4:]} confirmed"


def escalate(order_id: str) -> str:
    """Hand a disputed order to a senior agent.

    Args:
        order_id: the order number, like ORD-12345
    """
    return f"Escalation ES-{_order(order_id)[4:]} opened"
