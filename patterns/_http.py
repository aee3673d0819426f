"""The HTTP library the installed `anthropic` SDK is built on (httpx2 in SDK 2.x, httpx before).

SimModel builds real response objects of that library so that the SDK's own exception
classes can be raised exactly as the SDK raises them.
"""

from __future__ import annotations

try:  # SDK 2.x
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef]

__all__ = ["httpx"]
