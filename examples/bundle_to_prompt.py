"""Turn a ctxguard bundle into a review prompt for an agent (standard library only, no network).

    python examples/bundle_to_prompt.py .git/ctxguard/bundle.json > prompt.md

Every artifact is shown with what the agent needs to trust it: its tier, whether it was cut,
how many tokens it did not see, and where the full text is when it was offloaded.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ctxguard.record import omissions

INSTRUCTIONS = """\
You are reviewing a code change. The artifacts below were budgeted by ctxguard.
An artifact marked TRUNCATED is incomplete: do not assume that what you cannot see is fine;
say which conclusions depend on the missing part."""


def fence(text: str) -> str:
    """A backtick fence longer than any run of backticks inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def render(bundle: dict) -> str:  # type: ignore[type-arg]
    totals = bundle["totals"]
    parts = [
        INSTRUCTIONS,
        "",
        f"{totals['artifacts']} artifacts, {totals['compacted_tokens']} of {totals['raw_tokens']} "
        f"tokens shown, {totals['truncated']} truncated.",
    ]
    for a in bundle["artifacts"]:
        status = "complete"
        if a["truncated"]:
            status = f"TRUNCATED: {a['raw_tokens'] - a['compacted_tokens']}+ tokens not shown"
            if a.get("offload"):
                status += f"; full text at {a['offload']['path']}"
        elif a["tier"] == 2:
            status = omissions(a["content"]) + "; every must-see line kept"
        marks = fence(a["content"])
        parts += [
            "",
            f"## {a['artifact_name']} ({a['type']}, {status})",
            "",
            marks + {"diff": "diff", "json": "json"}.get(a["type"], ""),
            a["content"].rstrip("\n"),
            marks,
        ]
    return "\n".join(parts) + "\n"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        bundle = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"bundle_to_prompt: cannot read {sys.argv[1]}: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render(bundle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
