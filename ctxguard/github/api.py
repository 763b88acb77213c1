"""A small client of GitHub's REST API: JSON pages followed through their `Link` header, a file
fetched through the redirect GitHub answers with, bounded retries where retrying helps.

The token goes in the `Authorization` header of requests to the API's own origin (scheme, host
and port of `GITHUB_API_URL`) and nowhere else: a redirect to another origin (a job log's
storage) is followed without it, and a `Link` to another origin is not followed. It never
appears in an error: every message is built from the API's answer with the token taken out.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any, BinaryIO, Final

from ctxguard.words import plural

DEFAULT_API: Final = "https://api.github.com"
TIMEOUT: Final = 30.0  # seconds a request may wait for an answer
TRIES: Final = 3  # attempts at a request that failed in a way a retry can mend
BACKOFF: Final = (1.0, 4.0)  # seconds before the second and the third attempt (unless told)
LONGEST_WAIT: Final = 60.0  # seconds a `retry-after` or rate-limit reset is waited for, at most
MAX_DOWNLOAD: Final = 1 << 30  # bytes of one file fetched, at most (the rest is not read)
CHUNK: Final = 1 << 20
API_VERSION: Final = "2022-11-28"


class ApiError(Exception):
    """A request that did not get what it asked for, said in a sentence (no token in it)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Fetched:
    """A file fetched: where it is, how many bytes, and whether the rest was left unread."""

    path: Path
    size: int
    cut: bool


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answered, not followed: the client decides what goes to the new place."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class Client:
    """Requests to one API base with one token (or none)."""

    def __init__(self, base: str | None = None, token: str | None = None) -> None:
        self.base = (base or DEFAULT_API).rstrip("/")
        self.token = token or None
        if urllib.parse.urlsplit(self.base).scheme not in ("https", "http"):
            raise ApiError(f"GITHUB_API_URL must be an http(s) URL (got {self._clean(self.base)!r})")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Client:
        """The API of GITHUB_API_URL (GitHub Enterprise) else github.com, with GITHUB_TOKEN or GH_TOKEN."""
        env = dict(os.environ) if env is None else env
        return cls(env.get("GITHUB_API_URL") or None, env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or None)

    def json(self, path: str, params: dict[str, str] | None = None) -> Any:
        """One JSON answer."""
        with self._open(self._url(path, params)) as answer:
            return self._decode(answer.read(), path)

    def pages(self, path: str, key: str, params: dict[str, str] | None = None, limit: int = 50) -> Iterator[Any]:
        """The items under `key` of every page, following `Link: <…>; rel="next"` on the API's
        origin (at most `limit` pages)."""
        url: str | None = self._url(path, {"per_page": "100", **(params or {})})
        for _ in range(limit):
            if url is None:
                return
            with self._open(url) as answer:
                data = self._decode(answer.read(), path)
                link = answer.headers.get("Link", "")
            yield from (data.get(key) or []) if isinstance(data, dict) else []
            found = _NEXT.search(link)
            url = found.group(1) if found and origin(found.group(1)) == origin(self.base) else None

    def download(self, path: str, into: Path, limit: int = MAX_DOWNLOAD, prefix: bytes = b"") -> Fetched:
        """A file the API answers with a redirect to (a job's log), written to `into` after
        `prefix`; the redirect is followed with the token only when it stays on the API's origin."""
        url = self._url(path)
        for _hop in range(5):
            with self._open(url, follow=True) as answer:
                if answer.status in (301, 302, 303, 307, 308):
                    location = answer.headers.get("Location")
                    if not location:
                        raise ApiError(f"GitHub answered {answer.status} to {path} without a Location", answer.status)
                    url = urllib.parse.urljoin(url, location)
                    continue
                return _save(answer, into, limit, prefix)
        raise ApiError(f"too many redirects fetching {path}")

    # -- the requests -------------------------------------------------------------------------

    def _url(self, path: str, params: dict[str, str] | None = None) -> str:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        return f"{self.base}/{path.lstrip('/')}{query}"

    def _open(self, url: str, follow: bool = False) -> Any:
        """The answer to a GET, after up to TRIES attempts where a retry can mend it; a redirect
        is returned as an answer when `follow` (the caller decides), else is an error."""
        ours = origin(url) == origin(self.base)
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}
        headers["User-Agent"] = "ctxguard"
        if ours and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        where = self._clean(urllib.parse.urlsplit(url).path) if ours else "a log's storage"
        for attempt in range(TRIES):
            try:
                return _OPENER.open(urllib.request.Request(url, headers=headers), timeout=TIMEOUT)
            except urllib.error.HTTPError as answer:
                if follow and answer.code in (301, 302, 303, 307, 308):
                    return _Answer(answer.code, answer.headers)
                wait = _retry_in(answer.code, answer.headers, attempt)
                if wait is None or attempt == TRIES - 1:
                    raise ApiError(self._said(answer, where), answer.code) from None
                answer.close()
                time.sleep(wait)
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if attempt == TRIES - 1:
                    host, why = self._clean(origin(url)[1]), self._clean(str(reason))
                    raise ApiError(f"cannot reach {host} after {plural(TRIES, 'attempt')}: {why}") from None
                time.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
        raise AssertionError("unreachable")  # pragma: no cover

    def _said(self, answer: urllib.error.HTTPError, where: str) -> str:
        """The API's answer in a sentence: its status, its `message`, and what to do."""
        try:
            body = answer.read(65536)
        except OSError:
            body = b""
        try:
            message = json.loads(body).get("message") or ""
        except (ValueError, AttributeError):
            message = ""
        said = f"GitHub answered {answer.code}" + (f" ({message})" if message else f" ({answer.reason})")
        hint = {
            401: "the token is missing or not valid: set GITHUB_TOKEN (or GH_TOKEN)",
            403: "the token may not read this (it needs `actions: read`), or the rate limit is spent",
            404: "no such run or job here, or the token cannot see the repository (it needs `actions: read`)",
            410: "the logs are gone (GitHub keeps them for the repository's retention period)",
        }.get(answer.code)
        if answer.code == 403 and answer.headers.get("x-ratelimit-remaining") == "0":
            hint = "the API's rate limit is spent; try again after it resets, or use a token"
        return self._clean(f"{said} for {where}" + (f": {hint}" if hint else ""))

    def _clean(self, text: str) -> str:
        return text.replace(self.token, "[REDACTED:token]") if self.token else text

    def _decode(self, body: bytes, path: str) -> Any:
        try:
            return json.loads(body)
        except ValueError:
            raise ApiError(f"GitHub's answer for {self._clean(path)} is not JSON") from None


@dataclass(frozen=True)
class _Answer:
    """A redirect, answered instead of followed."""

    status: int
    headers: Message

    def __enter__(self) -> _Answer:
        return self

    def __exit__(self, *_: object) -> None:
        return None


def _retry_in(status: int, headers: Message, attempt: int) -> float | None:
    """Seconds to wait before trying again, or None when a retry cannot help: 5xx and 429 (and
    a 403 that says the rate limit is spent) are retried, `retry-after` or the limit's reset
    heeded up to LONGEST_WAIT."""
    limited = status == 429 or (
        status == 403 and (headers.get("retry-after") or headers.get("x-ratelimit-remaining") == "0")
    )
    if not (limited or status >= 500):
        return None
    backoff = BACKOFF[min(attempt, len(BACKOFF) - 1)]
    after = headers.get("retry-after")
    if after is not None and after.strip().isdigit():
        wait = float(after)
    elif headers.get("x-ratelimit-remaining") == "0" and (headers.get("x-ratelimit-reset") or "").isdigit():
        wait = float(headers["x-ratelimit-reset"]) - time.time()
    else:
        wait = backoff
    return None if wait > LONGEST_WAIT else max(0.0, wait)


def _save(answer: BinaryIO, into: Path, limit: int, prefix: bytes) -> Fetched:
    size, cut = 0, False
    with into.open("wb") as out:
        out.write(prefix)
        while chunk := answer.read(CHUNK):
            if size + len(chunk) > limit:
                out.write(chunk[: limit - size])
                size, cut = limit, True
                break
            out.write(chunk)
            size += len(chunk)
    return Fetched(into, size, cut)
