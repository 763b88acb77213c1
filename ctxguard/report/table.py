"""The human summary on stderr: one line per artifact with its status, and the bundle's usage."""

from __future__ import annotations

from ctxguard.bundle.model import Bundle
from ctxguard.options import Format
from ctxguard.record import status


def usage_line(bundle: Bundle) -> str:
    """The bundle's share of the reader's context window, its level and what to do."""
    u = bundle.usage
    return f"context: {u.tokens} of a {u.window}-token window ({u.share:.0%}) {u.level}: {u.action}"


def table(bundle: Bundle) -> str:
    """A fixed-width table of the bundle's artifacts and its usage line."""
    rows = [("artifact", "type", "tier", "status", "raw -> compacted / budget")]
    for r in bundle.records:
        rows.append(
            (
                r.artifact_name[:60],
                r.type,
                str(r.tier),
                status(r),
                f"{r.raw_tokens} -> {r.compacted_tokens} / {r.budget}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(f"{cell:<{width}}" for cell, width in zip(r[:4], widths)) + f"  {r[4]}" for r in rows]
    lines.append(usage_line(bundle))
    return "\n".join(lines)


def written_line(fmt: Format, total: int | None, bundle: Bundle) -> str:
    """The written file's size next to the content it carries, and the total it must keep to."""
    size = bundle.totals.bundle_tokens
    bound = "" if total is None else f" of total_budget {total}" + (" (OVER)" if size > total else "")
    content = bundle.totals.compacted_tokens + bundle.totals.digest_tokens
    share = f" ({content / size:.0%})" if size else ""
    return f"written bundle: {size} tokens ({fmt}){bound}; content and digest {content}{share}"
