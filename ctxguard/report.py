"""The human summary on stderr: one line per artifact with its status, and the bundle's usage."""

from __future__ import annotations

from typing import Any

LEVELS = ((0.25, "GREEN"), (0.50, "YELLOW"), (0.75, "ORANGE"), (0.85, "RED"))


def level(used: int, budget: int) -> str:
    """GREEN < 25 %, YELLOW < 50 %, ORANGE < 75 %, RED < 85 %, CRITICAL above."""
    share = used / budget if budget else 1.0
    for limit, name in LEVELS:
        if share < limit:
            return name
    return "CRITICAL"


def status(record: dict[str, Any]) -> str:
    """What happened to one artifact: MISSING (a configured file that does not exist), ERROR
    (could not be read), REFERENCE (listed, not included), TRUNCATED (cut) or OK."""
    if record.get("missing"):
        return "MISSING"
    if record.get("error"):
        return "ERROR"
    if record.get("read") == "reference":
        return "REFERENCE"
    return "TRUNCATED" if record["truncated"] else "OK"


def usage(bundle: dict[str, Any]) -> tuple[int, int, str]:
    """Tokens the bundle uses (records and digest), the capacity they are measured against, level."""
    used = bundle["totals"]["compacted_tokens"] + bundle["digest"]["tokens"]
    cap = bundle["totals"]["capacity"]
    return used, cap, level(used, cap)


def table(bundle: dict[str, Any]) -> str:
    """A fixed-width table of the bundle's artifacts and its usage line."""
    rows = [("artifact", "type", "tier", "status", "raw -> compacted / budget")]
    for a in bundle["artifacts"]:
        rows.append(
            (
                a["artifact_name"][:60],
                a["type"],
                str(a["tier"]),
                status(a),
                f"{a['raw_tokens']} -> {a['compacted_tokens']} / {a['budget']}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(f"{cell:<{width}}" for cell, width in zip(r[:4], widths)) + f"  {r[4]}" for r in rows]
    used, cap, name = usage(bundle)
    lines.append(
        f"bundle: {used} / {cap} tokens ({used / cap:.0%}) {name} "
        f"(digest {bundle['digest']['tokens']}); "
        f"serialized bundle {bundle['totals']['bundle_tokens']} tokens"
    )
    return "\n".join(lines)


def written_line(size: int, fmt: str, total: int | None, bundle: dict[str, Any]) -> str:
    """The written file's size next to the content it carries, and the total it must keep to."""
    bound = "" if total is None else f" of total_budget {total}" + (" (OVER)" if size > total else "")
    return (
        f"written bundle: {size} tokens ({fmt}){bound}; content and digest {usage(bundle)[0]}, "
        "the rest is the bundle's fields and escaping"
    )
