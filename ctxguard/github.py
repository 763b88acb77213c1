"""GitHub Actions glue: the pull request's range, step outputs, the step summary, warnings."""
from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxguard.report import usage

MAX_WARNINGS = 10
_ZERO = "0" * 40


def event_range(environ: Mapping[str, str] = os.environ) -> str | None:
    """`base...head` of the triggering pull request (or push), from GITHUB_EVENT_PATH.

    On pull_request events GITHUB_SHA is a merge commit, not the head, so the range comes from
    the payload: pull_request.base.sha...pull_request.head.sha.
    """
    path = environ.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(event, dict):
        return None
    pull = event.get("pull_request")
    if isinstance(pull, dict):
        base, head = pull.get("base", {}).get("sha"), pull.get("head", {}).get("sha")
        if isinstance(base, str) and isinstance(head, str):
            return f"{base}...{head}"
    before, after = event.get("before"), event.get("after")
    if isinstance(before, str) and isinstance(after, str) and before != _ZERO and after != _ZERO:
        return f"{before}...{after}"
    return None


def escape_data(text: str) -> str:
    """Workflow-command message escaping."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Workflow-command property escaping (also `:` and `,`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def outputs(bundle: dict[str, Any], path: Path | None) -> dict[str, str]:
    """The action's outputs."""
    totals = bundle["totals"]
    return {
        "bundle-path": str(path) if path is not None else "",
        "total-tokens": str(usage(bundle)[0]),
        "artifacts": str(totals["artifacts"]),
        "truncated": str(totals["truncated"]),
    }


def summary(bundle: dict[str, Any]) -> str:
    """The markdown table for $GITHUB_STEP_SUMMARY."""
    totals = bundle["totals"]
    used, cap, level = usage(bundle)
    lines = [
        "### ctxguard bundle",
        "",
        f"{totals['artifacts']} artifacts, {used} / {cap} tokens with the digest "
        f"({level}), {totals['truncated']} truncated, "
        f"encoding `{bundle['encoding']}`.",
        "",
        "| artifact | type | tier | raw tokens | compacted | budget | truncated |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for a in bundle["artifacts"]:
        name = a["artifact_name"].replace("|", "\\|")
        lines.append(f"| `{name}` | {a['type']} | {a['tier']} | {a['raw_tokens']} | "
                     f"{a['compacted_tokens']} | {a['budget']} | {_cut(a)} |")
    return "\n".join(lines) + "\n"


def _cut(record: dict[str, Any]) -> str:
    if record.get("read") == "reference":
        return "reference"
    return "**yes**" if record["truncated"] else "no"


def warnings(bundle: dict[str, Any]) -> list[str]:
    """`::warning` lines for truncated artifacts, at most MAX_WARNINGS (the rest counted)."""
    cut = [a for a in bundle["artifacts"] if a["truncated"] and a.get("read") != "reference"]
    lines = [
        f"::warning title={escape_property('ctxguard: ' + a['artifact_name'])}::"
        + escape_data(f"{a['artifact_name']} was truncated: {a['raw_tokens']} raw tokens for a budget "
                      f"of {a['budget']}; the agent sees {a['compacted_tokens']}.")
        for a in cut[:MAX_WARNINGS]
    ]
    if len(cut) > MAX_WARNINGS:
        lines.append(f"::warning title=ctxguard::{len(cut) - MAX_WARNINGS} more artifacts were truncated")
    return lines


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def publish(bundle: dict[str, Any], path: Path | None, environ: Mapping[str, str] = os.environ) -> None:
    """Write outputs and summary where the runner says, and print the warnings."""
    if environ.get("GITHUB_OUTPUT"):
        chunks = []
        for key, value in outputs(bundle, path).items():
            delimiter = f"ctxguard_{uuid.uuid4().hex}"
            chunks.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
        _append(environ["GITHUB_OUTPUT"], "".join(chunks))
    if environ.get("GITHUB_STEP_SUMMARY"):
        _append(environ["GITHUB_STEP_SUMMARY"], summary(bundle))
    for line in warnings(bundle):
        print(line, file=sys.stdout)
