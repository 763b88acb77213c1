"""A workflow run's jobs and their logs (`source: github-run`): which run (`run: auto` reads the
`workflow_run` event, else GITHUB_RUN_ID), which repository (GITHUB_REPOSITORY, else the
`origin` remote), which jobs (`failed`: those that failed, timed out or could not start; `all`:
every one, the failed first), each job's log fetched once per process into a folder removed at
exit, with a first line that names the job, how it ended, its failed step and its page.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxguard.github.api import ApiError, Client
from ctxguard.words import plural

FAILED: Final = ("failure", "timed_out", "startup_failure")  # a job's conclusions that count as failed
JOBS: Final = ("failed", "all")


class RunError(ValueError):
    """What is missing to name the run or the repository, in a sentence."""


@dataclass(frozen=True)
class JobLog:
    """One job as a record reads it: its log's file, or why there is none."""

    name: str  # `<workflow> / <job>`
    path: Path | None = None
    text: str | None = None  # what the record says when there is no log to read
    error: str | None = None
    notes: tuple[str, ...] = ()
    missing: bool = False


def run_id(run: str | None, env: dict[str, str]) -> int:
    """The run an entry names: a number, or `auto` (the default): the run of a `workflow_run`
    event (the run that triggered this workflow), else this workflow's own (GITHUB_RUN_ID)."""
    if run not in (None, "", "auto"):
        if not str(run).isdigit():
            raise RunError(f"run must be a run id (digits) or auto (got {run!r})")
        return int(str(run))
    event = env.get("GITHUB_EVENT_PATH")
    if event:
        try:
            data = json.loads(Path(event).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        found = data.get("workflow_run", {}).get("id") if isinstance(data, dict) else None
        if isinstance(found, int):
            return found
    if (env.get("GITHUB_RUN_ID") or "").isdigit():
        return int(env["GITHUB_RUN_ID"])
    raise RunError("run: auto needs a workflow_run event or GITHUB_RUN_ID (in GitHub Actions); else give a run id")


_REMOTE = re.compile(r"[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$")


def repository(env: dict[str, str], remote: str | None) -> str:
    """`owner/name`: GITHUB_REPOSITORY, else the `origin` remote's last two path parts."""
    named = env.get("GITHUB_REPOSITORY", "")
    if re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", named):
        return named
    found = _REMOTE.search(remote or "")
    if found:
        return f"{found.group(1)}/{found.group(2)}"
    raise RunError("cannot tell the repository: set GITHUB_REPOSITORY (owner/name) or add an `origin` remote")


_FETCHED: dict[tuple[str, str, int, str], list[JobLog]] = {}  # (api, repository, run, jobs) -> logs
_FOLDER: list[Path] = []


def _folder() -> Path:
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="ctxguard-run-")))
        atexit.register(shutil.rmtree, _FOLDER[0], True)
    return _FOLDER[0]


def job_logs(client: Client, repo: str, run: int, jobs: str = "failed") -> list[JobLog]:
    """The run's jobs as records (fetched once per process); an answer that is not the logs is
    one missing record that says it in a sentence."""
    key = (client.base, repo, run, jobs)
    if key not in _FETCHED:
        try:
            _FETCHED[key] = _fetch(client, repo, run, jobs)
        except ApiError as exc:
            _FETCHED[key] = [JobLog(f"run {run}", error=f"cannot read run {run} of {repo}: {exc}", missing=True)]
    return _FETCHED[key]


def _fetch(client: Client, repo: str, run: int, jobs: str) -> list[JobLog]:
    about = client.json(f"repos/{repo}/actions/runs/{run}")
    workflow = str(about.get("name") or about.get("display_title") or f"run {run}")
    listed = list(client.pages(f"repos/{repo}/actions/runs/{run}/jobs", "jobs", {"filter": "latest"}))
    failed = [job for job in listed if job.get("conclusion") in FAILED]
    chosen = failed + [job for job in listed if job not in failed] if jobs == "all" else failed
    status = str(about.get("status") or "")
    if not chosen:
        if status != "completed":
            return [
                JobLog(
                    workflow,
                    error=f"run {run} ({workflow}) is {status or 'not finished'}: no failed job yet; "
                    "run again once it completes",
                    missing=True,
                )
            ]
        said = f"[NO FAILED JOBS: run {run} ({workflow}) concluded {about.get('conclusion') or 'without a conclusion'}]"
        return [JobLog(workflow, text=said, notes=(f"{plural(len(listed), 'job')}, none failed",))]
    out = []
    names = [str(job.get("name") or job.get("id")) for job in chosen]
    for job, name in zip(chosen, names):
        label = f"{workflow} / {name}" if names.count(name) == 1 else f"{workflow} / {name} ({job.get('id')})"
        if job.get("status") != "completed":
            out.append(
                JobLog(label, error=f"job {name} is {job.get('status')}: its log is not final yet", missing=True)
            )
            continue
        path = _folder() / f"{run}-{job.get('id')}.log"
        try:  # (the log written once, after its first line)
            logs = f"repos/{repo}/actions/jobs/{job['id']}/logs"
            fetched = client.download(logs, path, prefix=_heading(label, job).encode())
        except ApiError as exc:
            out.append(JobLog(label, error=f"cannot read the log of job {name}: {exc}", missing=True))
            continue
        except OSError as exc:
            out.append(JobLog(label, error=f"cannot write the log of job {name}: {exc.strerror or exc}", missing=True))
            continue
        notes = (f"the log was cut at {fetched.size:,} bytes",) if fetched.cut else ()
        out.append(JobLog(label, path=path, notes=notes))
    return out


def _heading(label: str, job: dict[str, Any]) -> str:
    """The log's first line: the job, how it ended, the steps that failed, its page."""
    steps = [s for s in job.get("steps") or [] if s.get("conclusion") in FAILED]
    failed = "; ".join(f"step {s.get('number')} {s.get('name')!r} failed" for s in steps)
    page = f" ({job['html_url']})" if job.get("html_url") else ""
    return f"# {label}: {job.get('conclusion') or job.get('status')}{'; ' + failed if failed else ''}{page}\n"
