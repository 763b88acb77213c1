"""`ctxguard check --format`: the failed policies where other tools read them.

- `text` (the default): sentences on standard error, as a person reads them;
- `json`: one object on standard output: whether it passed, each failure (rule, artifact,
  message), each record's status and sizes, the written bundle's tokens;
- `sarif`: a SARIF 2.1.0 log on standard output, one `error` result per failed policy (rule
  ids `ctxguard/truncated`, `ctxguard/over-budget`, `ctxguard/missing`, …), the artifact as its
  location, for code scanning, reviewdog and the other tools that read SARIF;
- `github`: the failures as GitHub Actions `::error` annotations on standard output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final, Literal

from ctxguard.record import Record, status
from ctxguard.report.policy import RULES, Finding

CheckFormat = Literal["text", "json", "sarif", "github"]
CHECK_FORMATS: Final[tuple[CheckFormat, ...]] = ("text", "json", "sarif", "github")
SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
HOME: Final = "https://github.com/ctxguard/ctxguard"


def as_json(found: Sequence[Finding], records: Sequence[Record], written: int | None) -> str:
    out: dict[str, Any] = {
        "passed": not found,
        "failures": [{"rule": f"ctxguard/{f.rule}", "artifact": f.artifact, "message": f.message} for f in found],
        "records": [
            {
                "artifact_name": r.artifact_name,
                "status": status(r),
                "tier": r.tier,
                "raw_tokens": r.raw_tokens,
                "compacted_tokens": r.compacted_tokens,
                "truncated": r.truncated,
            }
            for r in records
        ],
        "written_tokens": written,
    }
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def as_sarif(found: Sequence[Finding], version: str) -> str:
    used = list(dict.fromkeys(f.rule for f in found))
    rules = [
        {
            "id": f"ctxguard/{rule}",
            "name": rule.replace("-", " "),
            "shortDescription": {"text": RULES[rule]},
            "defaultConfiguration": {"level": "error"},
            "helpUri": f"{HOME}/blob/main/docs/usage.md#policies",
        }
        for rule in used
    ]
    results = []
    for f in found:
        result: dict[str, Any] = {
            "ruleId": f"ctxguard/{f.rule}",
            "ruleIndex": used.index(f.rule),
            "level": "error",
            "message": {"text": f.message},
        }
        if f.artifact is not None:
            result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.artifact)}}}]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "ctxguard", "version": version, "informationUri": HOME, "rules": rules}},
                "results": results,
            }
        ],
    }
    return json.dumps(log, ensure_ascii=False, indent=2) + "\n"


def as_github(found: Sequence[Finding]) -> str:
    """`::error title=ctxguard/<rule>::<message>` lines (the values escaped as the runner wants)."""
    lines = []
    for f in found:
        title = _escape(f"ctxguard/{f.rule}" + (f" ({f.artifact})" if f.artifact else ""), True)
        lines.append(f"::error title={title}::{_escape(f.message, False)}")
    return "".join(line + "\n" for line in lines)


def _uri(artifact: str) -> str:
    """An artifact's name as a relative URI (a path as is, its spaces and `#` escaped)."""
    return artifact.replace("%", "%25").replace(" ", "%20").replace("#", "%23")


def _escape(text: str, property_value: bool) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text
