"""A local stand-in for GitHub's REST API on 127.0.0.1, answering as the real one does where
ctxguard depends on it (https://docs.github.com/rest/actions/workflow-jobs):

- `GET /repos/{owner}/{repo}/actions/runs/{id}`: the run (`name`, `status`, `conclusion`);
- `GET …/actions/runs/{id}/jobs?filter=latest&per_page=N&page=P`: `{"total_count", "jobs"}`,
  page by page with a `Link: <…>; rel="next"` header (PAGE jobs a page at most);
- `GET …/actions/jobs/{job_id}/logs`: `302 Found` to the log on a second server (another
  origin: another port), which answers the text and records every `Authorization` it receives;
- a token is required (`Authorization: Bearer <TOKEN>`, else 401 `Bad credentials`); a run or
  job it does not hold is 404 `Not Found`; `failures` makes a path answer 500 (or a rate-limit
  403 with `x-ratelimit-remaining: 0`, or 429 with `retry-after`) that many times first.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"  # (made up; the shape of an Actions token)
PAGE = 2


@dataclass
class State:
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    jobs: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # run -> its jobs
    logs: dict[int, bytes] = field(default_factory=dict)  # job -> its log
    failures: dict[str, list[tuple[int, dict[str, str]]]] = field(default_factory=dict)  # path -> answers first
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Authorization) on the API
    storage: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Authorization) on the log host
    storage_url: str = ""


def _handler(state: State, api: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # (quiet)
            pass

        def answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            parts = urlsplit(self.path)
            auth = self.headers.get("Authorization")
            if not api:
                state.storage.append((parts.path, auth))
                job = int(parts.path.rsplit("/", 1)[-1])
                self.answer(200, state.logs[job], {"Content-Type": "text/plain"})
                return
            state.requests.append((parts.path, auth))
            queued = state.failures.get(parts.path)
            if queued:
                status, headers = queued.pop(0)
                return self.answer(
                    status, {"message": "Server Error" if status >= 500 else "API rate limit exceeded"}, headers
                )
            if auth != f"Bearer {TOKEN}":
                return self.answer(
                    401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
                )
            if m := re.fullmatch(r"/repos/[^/]+/[^/]+/actions/runs/(\d+)", parts.path):
                run = state.runs.get(int(m.group(1)))
                return self.answer(200, run) if run else self.not_found()
            if m := re.fullmatch(r"/repos/[^/]+/[^/]+/actions/runs/(\d+)/jobs", parts.path):
                return self.jobs(int(m.group(1)), parse_qs(parts.query))
            if m := re.fullmatch(r"/repos/[^/]+/[^/]+/actions/jobs/(\d+)/logs", parts.path):
                job = int(m.group(1))
                if job not in state.logs:
                    return self.not_found()
                return self.answer(302, b"", {"Location": f"{state.storage_url}/logs/{job}"})
            self.not_found()

        def not_found(self) -> None:
            self.answer(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})

        def jobs(self, run: int, query: dict[str, list[str]]) -> None:
            if run not in state.runs:
                return self.not_found()
            per_page = min(PAGE, int(query.get("per_page", ["30"])[0]))
            page = int(query.get("page", ["1"])[0])
            listed = state.jobs.get(run, [])
            shown = listed[(page - 1) * per_page : page * per_page]
            headers = {}
            if page * per_page < len(listed):
                host = f"http://{self.headers['Host']}"
                path = urlsplit(self.path).path
                headers["Link"] = f'<{host}{path}?filter=latest&per_page={per_page}&page={page + 1}>; rel="next"'
            self.answer(200, {"total_count": len(listed), "jobs": shown}, headers)

    return Handler


@contextmanager
def github(state: State) -> Iterator[str]:
    """The API's base URL, its log storage on another port, both served while inside."""
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), _handler(state, api)) for api in (True, False)]
    state.storage_url = f"http://127.0.0.1:{servers[1].server_address[1]}"
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers]
    for thread in threads:
        thread.start()
    try:
        yield f"http://127.0.0.1:{servers[0].server_address[1]}"
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def job(job_id: int, name: str, conclusion: str, run: int = 7, failed_step: str | None = None) -> dict[str, Any]:
    """A job as the API lists it."""
    steps = [{"name": "Set up job", "status": "completed", "conclusion": "success", "number": 1}]
    if failed_step:
        steps.append({"name": failed_step, "status": "completed", "conclusion": "failure", "number": 2})
    return {
        "id": job_id,
        "run_id": run,
        "name": name,
        "status": "completed",
        "conclusion": conclusion,
        "steps": steps,
        "html_url": f"https://github.com/acme/ledger/actions/runs/{run}/job/{job_id}",
    }
