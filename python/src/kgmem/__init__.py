"""kgmem: the Python client of the kgmem memory server, and a LangGraph store on it.

    from kgmem import KgmemClient, AsyncKgmemClient
    from kgmem.langgraph import KgmemStore
"""

from .client import AsyncKgmemClient, KgmemClient
from .errors import (
    AuthenticationError,
    InvalidRequestError,
    KgmemError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    UnavailableError,
    UnreachableError,
)
from .namespaces import to_labels, to_namespace

__all__ = [
    "AsyncKgmemClient",
    "AuthenticationError",
    "InvalidRequestError",
    "KgmemClient",
    "KgmemError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitedError",
    "UnavailableError",
    "UnreachableError",
    "to_labels",
    "to_namespace",
]
