"""GitHub Actions glue: step outputs, the step summary, annotations. (The event's range:
ctxguard.ranges.)"""

from __future__ import annotations

import json
import os
import re
import sys
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from ctxguard.bundle.model import Bundle
from ctxguard.bundle.render import coverage
from ctxguard.bundle.render import fence as render_fence
from ctxguard.record import Record, status
from ctxguard.words import plural

MAX_WARNINGS = 10
TOP = 5  # largest artifacts and files the step summary names


def escape_data(text: str) -> str:
    """Workflow-command message escaping."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Workflow-command property escaping (also `:` and `,`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def outputs(
    bundle: Bundle,
    path: Path | None,
    problems: list[str] | None = None,
    prompt: Path | None = None,
    parts: list[Path] | None = None,
) -> dict[str, str]:
    """The action's outputs. `passed` is empty when no check ran; `parts` are every bundle of a
    change split into chunks (the first is `path`)."""
    totals = bundle.totals
    return {
        "bundle-path": str(path) if path is not None else "",
        "bundle-paths": "\n".join(str(p) for p in (parts or ([path] if path is not None else []))),
        "offload-path": str(path.parent / "offload") if path is not None else "",
        "prompt-path": str(prompt) if prompt is not None else "",
        "total-tokens": str(totals.bundle_tokens),
        "artifacts": str(totals.artifacts),
        "truncated": str(totals.truncated),
        "over-budget": json.dumps(over_budget(bundle), ensure_ascii=False),
        "level": bundle.usage.level,
        "passed": "" if problems is None else str(not problems).lower(),
        "summary": headline(bundle, problems),
    }


def over_budget(bundle: Bundle) -> list[str]:
    """The artifacts whose raw text was over their budget (compressed or cut), by name."""
    return [r.artifact_name for r in bundle.records if r.tier > 1]


def headline(bundle: Bundle, problems: list[str] | None = None) -> str:
    """One line: the verdict, what the bundle holds, and the first reason it failed."""
    counts = Counter(status(r) for r in bundle.records)
    states = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    verdict = "" if problems is None else "check failed: " if problems else "check passed: "
    reason = f"; {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "") if problems else ""
    u = bundle.usage
    return (
        f"ctxguard {verdict}{plural(bundle.totals.artifacts, 'artifact')} ({states}), "
        f"{u.tokens} tokens ({u.share:.0%} of a {u.window}-token window, {u.level}){reason}"
    )


def summary(bundle: Bundle, problems: list[str] | None = None) -> str:
    """The markdown for $GITHUB_STEP_SUMMARY: the verdict and its reasons, each artifact with its
    status, the coverage, the largest artifacts and changed files, and the digest."""

    lines = ["### ctxguard bundle", ""]
    if problems is not None:
        lines.append("**Check failed:**" if problems else "**Check passed.**")
        lines += [f"- {problem}" for problem in problems]
        lines.append("")
    u = bundle.usage
    lines += [
        f"{plural(bundle.totals.artifacts, 'artifact')}; the bundle is {u.tokens} tokens, {u.share:.0%} of a "
        f"{u.window}-token context window: **{u.level}** ({u.action}). Encoding `{bundle.encoding}`.",
        "",
        "| artifact | type | tier | raw tokens | compacted | budget | status |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for r in bundle.records:
        name = r.artifact_name.replace("|", "\\|")
        mark = status(r) if status(r) in ("OK", "COMPRESSED", "REFERENCE") else f"**{status(r)}**"
        lines.append(
            f"| `{name}` | {r.type} | {r.tier} | {r.raw_tokens} | {r.compacted_tokens} | {r.budget} | {mark} |"
        )
    lines += ["", *coverage(bundle)]
    largest = sorted(bundle.records, key=lambda r: -r.raw_tokens)[:TOP]
    lines += [
        "",
        "Largest artifacts: " + ", ".join(f"`{r.artifact_name}` ({r.raw_tokens} tokens)" for r in largest),
    ]
    files = sorted((f for r in bundle.records for f in r.files or ()), key=lambda f: -(f.added + f.removed))[:TOP]
    if files:
        lines.append("Most changed files: " + ", ".join(f"`{f.path}` (+{f.added} -{f.removed})" for f in files))
    digest = bundle.digest.strip()
    if digest:
        fence = render_fence(digest)
        lines += ["", "<details><summary>Digest</summary>", "", f"{fence}markdown", digest, fence, "", "</details>"]
    return "\n".join(lines) + "\n"


def commands(bundle: Bundle, problems: list[str] | None = None) -> list[str]:
    """`::error` for each reason a check failed; `::warning` for each truncated, missing or
    unreadable artifact, at most MAX_WARNINGS of each (the rest counted)."""
    lines = [
        f"::error title=ctxguard check failed::{escape_data(problem)}" for problem in (problems or [])[:MAX_WARNINGS]
    ]
    if problems and len(problems) > MAX_WARNINGS:
        lines.append(f"::error title=ctxguard check failed::{len(problems) - MAX_WARNINGS} more failures")
    said: dict[str, Callable[[Record], str]] = {
        "TRUNCATED": lambda r: (
            f"{r.artifact_name} was truncated: {r.raw_tokens} raw tokens for a "
            f"budget of {r.budget}; the agent sees {r.compacted_tokens}."
        ),
        "MISSING": lambda r: f"{r.artifact_name} is missing: {r.error or r.content.strip()}",
        "ERROR": lambda r: f"{r.artifact_name} could not be read: {r.error}",
    }
    for name, text in said.items():
        hit = [r for r in bundle.records if status(r) == name]
        lines += [
            f"::warning title={escape_property('ctxguard: ' + r.artifact_name)}::{escape_data(text(r))}"
            for r in hit[:MAX_WARNINGS]
        ]
        if len(hit) > MAX_WARNINGS:
            lines.append(f"::warning title=ctxguard::{len(hit) - MAX_WARNINGS} more artifacts: {name}")
    return lines


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


COMMENT_MARK = "<!-- ctxguard -->"  # the first line of the sticky pull-request comment
COMMENT_LIMIT = 60_000  # characters: GitHub refuses a comment body over 65,536


def comment_body(text: str, limit: int = COMMENT_LIMIT) -> str:
    """The pull-request comment: the marker and the summary, cut at a line break to stay under
    limit characters, with a line saying where the rest is."""
    body = f"{COMMENT_MARK}\n{text}"
    if len(body) <= limit:
        return body
    tail = (
        "\n\n_… the rest of this summary is cut to fit a comment: see the job's step summary, "
        "or the uploaded bundle._\n"
    )
    cut = body.rfind("\n", 0, limit - len(tail))
    return body[: cut if cut > 0 else limit - len(tail)] + tail


def publish(
    bundle: Bundle,
    path: Path | None,
    environ: Mapping[str, str] = os.environ,
    problems: list[str] | None = None,
    comment_file: Path | None = None,
    prompt: Path | None = None,
    parts: list[Path] | None = None,
) -> None:
    """Write outputs and summary where the runner says, and print the annotations. `problems`
    are the check's failures (None when no check ran); comment_file gets the summary as the
    body of the Action's pull-request comment."""
    if comment_file is not None:
        comment_file.parent.mkdir(parents=True, exist_ok=True)
        comment_file.write_text(comment_body(summary(bundle, problems)), encoding="utf-8")
    if environ.get("GITHUB_OUTPUT"):
        chunks = []
        for key, value in outputs(bundle, path, problems, prompt, parts).items():
            delimiter = f"ctxguard_{uuid.uuid4().hex}"
            chunks.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
        _append(environ["GITHUB_OUTPUT"], "".join(chunks))
    if environ.get("GITHUB_STEP_SUMMARY"):
        _append(environ["GITHUB_STEP_SUMMARY"], summary(bundle, problems))
    for line in commands(bundle, problems):
        print(line, file=sys.stdout)


_AT_LINE = re.compile(r"^\s*(?P<file>[^\s:]+\.ya?ml):(?P<line>\d+): ", re.M)


def report_error(message: str, environ: Mapping[str, str] = os.environ) -> None:
    """A usage or config error in Actions: one `::error` per problem (with `file=` and `line=`
    for a config's), and the step summary saying what happened and what to do."""
    located = list(_AT_LINE.finditer(message))
    if located:
        root = environ.get("GITHUB_WORKSPACE") or os.getcwd()
        for match in located:
            rest = message[match.end() :].split("\n", 1)[0]
            file = match.group("file")
            if os.path.isabs(file) and not os.path.relpath(file, root).startswith(".."):
                file = os.path.relpath(file, root)  # annotations name files from the workspace
            print(
                f"::error file={escape_property(file)},line={match.group('line')},"
                f"title=ctxguard config::{escape_data(rest)}"
            )
    else:
        print(f"::error title=ctxguard::{escape_data(message)}")
    if environ.get("GITHUB_STEP_SUMMARY"):
        _append(
            environ["GITHUB_STEP_SUMMARY"],
            f"### ctxguard bundle\n\n**Not run: ctxguard stopped before writing a bundle.**\n\n"
            f"```\n{message}\n```\n\nFix what it says (the config, the checkout's history, the "
            "inputs) and run again; without a config, ctxguard uses its defaults.\n",
        )
