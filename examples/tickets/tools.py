"""The three lookup tools of the `tickets` example; each reads `records.json` next to this file.

Plain typed, documented functions: the task file's loader turns them into tools. An unknown
identifier raises, which the model sees as an error result it can recover from.
"""

from __future__ import annotations

import json
from pathlib import Path

RECORDS = json.loads((Path(__file__).parent / "records.json").read_text(encoding="utf-8"))


def get_invoice(customer_id: str) -> str:
    """Look up a customer's latest invoice (billing questions).

    Args:
        customer_id: the customer ID, like C-1234
    """
    rec = RECORDS["invoices"].get(customer_id.strip().upper())
    if rec is None:
        raise KeyError(f"no customer {customer_id!r}: customer IDs look like C-1234")
    return f"Invoice {rec['invoice']} for {customer_id}: {rec['amount']}, due {rec['due']}, {rec['status']}"


def track_order(order_id: str) -> str:
    """Track an order's delivery (shipping questions).

    Args:
        order_id: the order number, like ORD-12345
    """
    rec = RECORDS["orders"].get(order_id.strip().upper())
    if rec is None:
        raise KeyError(f"no order {order_id!r}: order numbers look like ORD-12345")
    return f"Order {order_id}: {rec['status']} with {rec['carrier']}, expected delivery {rec['eta']}"


def get_account(email: str) -> str:
    """Look up a customer account by email: its status and password-reset code (account questions).

    Args:
        email: the account's email address
    """
    rec = RECORDS["accounts"].get(email.strip().lower())
    if rec is None:
        raise KeyError(f"no account {email!r}")
    return f"Account {email}: {rec['status']} ({rec['reason']}); reset code {rec['reset_code']}"
