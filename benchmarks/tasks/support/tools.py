"""The `support` family's four lookup tools, built fresh over one trial's records.

Each tool checks the shape of its argument first, so a model that passes an order number to
`get_invoice` is told what kind of id that tool wants, and an unknown id is named in the error.
Every call is appended to `state["calls"]`.
"""

from __future__ import annotations

import re
from typing import Any

from benchmarks.tasks.base import look_up
from patterns.tools import ToolSet, tool


def _shaped(value: str, pattern: str, what: str, example: str, hint: str) -> str:
    value = value.strip()
    if not re.fullmatch(pattern, value):
        raise ValueError(f"{value!r} is not {what}; {what}s look like {example} ({hint})")
    return value


def make_tools(state: dict[str, Any]) -> ToolSet:
    """get_invoice, track_order, get_account and search_kb over `state`'s records."""

    @tool(timeout_s=None)
    def get_invoice(customer_id: str) -> dict[str, str]:
        """Look up a customer's latest invoice, for billing questions: invoice number, amount, due date, status.

        Args:
            customer_id: the customer's id, like C-12345
        """
        state["calls"].append(("get_invoice", {"customer_id": customer_id}))
        cid = _shaped(customer_id, r"C-\d{5}", "a customer id", "C-12345", "for an order number use track_order")
        return dict(look_up(state["invoices"], cid, f"no customer {cid}; check the id in the ticket"))

    @tool(timeout_s=None)
    def track_order(order_id: str) -> dict[str, str]:
        """Track an order, for shipping questions: status, carrier and expected delivery date (eta).

        Args:
            order_id: the order number, like ORD-12345
        """
        state["calls"].append(("track_order", {"order_id": order_id}))
        oid = _shaped(order_id, r"ORD-\d{5}", "an order number", "ORD-12345", "for a customer id use get_invoice")
        return dict(look_up(state["orders"], oid, f"no order {oid}; check the number in the ticket"))

    @tool(timeout_s=None)
    def get_account(email: str) -> dict[str, str]:
        """Look up a customer account by email, for login and access questions: status, reason, reset code.

        Args:
            email: the account's email address
        """
        state["calls"].append(("get_account", {"email": email}))
        address = _shaped(email.lower(), r"[^@\s]+@[^@\s]+\.[^@\s]+", "an email address", "name@example.com",
                          "accounts are looked up by email")
        missing = f"no account for {address}; check the address in the ticket"
        return dict(look_up(state["accounts"], address, missing))

    @tool(timeout_s=None)
    def search_kb(product: str, error_code: str) -> dict[str, str]:
        """Search the knowledge base for a product's error code, for technical questions: article id and fix.

        Args:
            product: the product name as the customer wrote it, like Router X200
            error_code: the error code, like E-42
        """
        state["calls"].append(("search_kb", {"product": product, "error_code": error_code}))
        products = sorted({key.split("|")[0] for key in state["kb"]})
        name = next((p for p in products if p.lower() == product.strip().lower()), None)
        if name is None:
            raise LookupError(f"unknown product {product!r}; known products: {', '.join(products)}")
        code = error_code.strip().upper()
        if f"{name}|{code}" not in state["kb"]:
            known = sorted(key.split("|")[1] for key in state["kb"] if key.startswith(name + "|"))
            raise LookupError(f"no article for {name} error {code}; known codes for {name}: {', '.join(known)}")
        return dict(state["kb"][f"{name}|{code}"])

    return ToolSet([get_invoice, track_order, get_account, search_kb])
