"""Errors raised by the kgmem clients: the server's problem+json answers,
and UnreachableError when no answer came."""

from __future__ import annotations

from typing import Any

import httpx


class KgmemError(Exception):
    """An error answer of the kgmem API (RFC 9457 problem+json).

    Attributes:
        status: the HTTP status (400, 404, 422, 429, 503…).
        title: the status text ("Bad Request").
        detail: what was wrong, in the server's words.
        field: the JSON path of the offending request field, when the
            server names one ("value", "filter.score.$gt"), else None.
        request_id: the server's request id, for its logs.
    """

    def __init__(self, status: int, title: str, detail: str, field: str | None = None, request_id: str | None = None) -> None:
        self.status = status
        self.title = title
        self.detail = detail
        self.field = field
        self.request_id = request_id
        where = f" ({field})" if field else ""
        super().__init__(f"kgmem {status} {title}{where}: {detail}")


class InvalidRequestError(KgmemError):
    """400 or 422: the request was refused and nothing changed."""


class AuthenticationError(KgmemError):
    """401: no API key, or an unknown, malformed or revoked one."""


class PermissionDeniedError(KgmemError):
    """403: the key does not cover the namespace or lacks the right."""


class NotFoundError(KgmemError):
    """404: the record does not exist in the namespace."""


class RateLimitedError(KgmemError):
    """429: the key exceeds its rate limit (after the client's retries)."""


class UnavailableError(KgmemError):
    """503: a backend is unavailable (after the client's retries)."""


class UnreachableError(KgmemError):
    """No answer: the server could not be reached (connection refused, DNS,
    TLS) or the request failed in transport (timeout, broken connection).

    status is 0 and title "Unreachable"; the httpx exception is the cause
    (``err.__cause__``).
    """

    def __init__(self, url: str, cause: httpx.TransportError) -> None:
        self.url = url
        reason = str(cause) or type(cause).__name__
        super().__init__(0, "Unreachable", f"no answer from {url} ({reason}); is a kgmem server running there?")


_BY_STATUS: dict[int, type[KgmemError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    422: InvalidRequestError,
    429: RateLimitedError,
    503: UnavailableError,
}


def error_from_response(resp: httpx.Response) -> KgmemError:
    """Builds the KgmemError of an error answer."""
    body: dict[str, Any] = {}
    try:
        parsed = resp.json()
        if isinstance(parsed, dict):
            body = parsed
    except ValueError:
        pass
    cls = _BY_STATUS.get(resp.status_code, KgmemError)
    return cls(
        status=resp.status_code,
        title=str(body.get("title") or resp.reason_phrase),
        detail=str(body.get("detail") or resp.text),
        field=body.get("field"),
        request_id=body.get("request_id"),
    )
