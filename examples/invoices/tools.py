"""The two tools of the `invoices` example: look an invoice up, then convert its amount to euros.

A task that needs "look up, then compute": the second call needs the first one's result, so one
round of tool calls cannot do it. Plain typed, documented functions; `records.json` holds the data.
"""

from __future__ import annotations

import json
from pathlib import Path

RECORDS = json.loads((Path(__file__).parent / "records.json").read_text(encoding="utf-8"))
EUR_PER_USD = 0.92  # a fixed rate, so the answers do not move


def get_invoice(customer_id: str) -> str:
    """Look up a customer's latest invoice: its number, amount in US dollars and due date.

    Args:
        customer_id: the customer ID, like C-1234
    """
    rec = RECORDS.get(customer_id.strip().upper())
    if rec is None:
        raise KeyError(f"no customer {customer_id!r}: customer IDs look like C-1234")
    return f"Invoice {rec['invoice']} for {customer_id}: {rec['amount_usd']:.2f} USD, due {rec['due']}"


def usd_to_eur(amount: float) -> str:
    """Convert an amount in US dollars to euros at today's rate.

    Args:
        amount: the amount in US dollars, a plain number like 134.20
    """
    return f"{amount:.2f} USD = {amount * EUR_PER_USD:.2f} EUR"
