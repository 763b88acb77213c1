"""Secret redaction, before anything is counted, compressed, written or offloaded.

A match becomes `[REDACTED:<kind>]`; only the counts per kind are reported, never the values.
Patterns are anchored on what makes a secret recognisable (a vendor prefix, a PEM block, a key
name with a literal value), not on entropy, so lockfile hashes, UUIDs, commit ids and base64
test data pass untouched. The replacement holds no quote or backslash, so a redacted JSON
string is still a valid JSON string.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_KEYWORDS = (r"(?:password|passwd|pwd|passphrase|secret|client_secret|secret_key|token|auth_token"
             r"|access_token|refresh_token|api_key|apikey|api-key|access_key|private_key)")
# Values that are references or placeholders, not literal secrets.
_NOT_LITERAL = re.compile(r"^(?:\d+$|\$|\{|<|%|\(|\[|\*{3}|x{3,}$|null$|none$|true$|false$|undefined$|changeme$|write$|read$|redacted|\[REDACTED)", re.I)
# An unquoted value that names something (`source.token`, `self.api_key`) is code, not a secret.
_REFERENCE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$")

# Order matters: the more specific vendor patterns run before the generic ones.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        re.S)),
    ("aws_access_key", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Z0-9])")),
    ("google_api_key", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])")),
    ("github_token", re.compile(r"(?<![\w])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})(?![\w])")),
    ("gitlab_token", re.compile(r"(?<![\w-])glpat-[A-Za-z0-9_-]{20,}(?![\w-])")),
    ("slack_token", re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}(?![\w-])")),
    ("slack_webhook", re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+")),
    ("anthropic_key", re.compile(r"(?<![\w-])sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}(?![\w-])")),
    ("stripe_key", re.compile(r"(?<![\w])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}(?![\w])|(?<![\w])whsec_[A-Za-z0-9]{24,}(?![\w])")),
    ("openai_key", re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}(?![\w-])")),
    ("jwt", re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?![\w-])")),
    ("url_password", re.compile(r"(?<=://)[^/\s:@\"']+:([^/\s@\"']{3,})@")),
)
# `password = "literal"`, `"api_key": "literal"`, `token: 'literal'` anywhere on a line.
_QUOTED = re.compile(
    rf"""(?ix)(\b[\w.-]*{_KEYWORDS}["']?\s*[:=]\s*)(["'])((?:(?!\2)[^\\\n]|\\.){{4,}}?)\2""")
# `DB_PASSWORD=literal`, `password: literal` (env files, YAML, INI), also on a diff's +/- lines.
_UNQUOTED = re.compile(
    rf"""(?imx)^([+\- ]?\s*(?:export\s+)?[\w.-]*{_KEYWORDS}\s*[:=]\s*)([^\s"'\#,;]{{4,}})\s*$""")


_HINTS = ("pass", "pwd", "secret", "token", "key")


@dataclass(frozen=True)
class Redacted:
    """The text with secrets replaced, and how many of each kind were found."""

    text: str
    counts: dict[str, int]


# A literal each pattern's matches contain: a pattern runs only when its literal is present.
_LITERALS = {
    "private_key": ("PRIVATE KEY",), "aws_access_key": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "google_api_key": ("AIza",), "github_token": ("gh", "github_pat_"), "gitlab_token": ("glpat-",),
    "slack_token": ("xox",), "slack_webhook": ("hooks.slack.com",), "anthropic_key": ("sk-ant-",),
    "stripe_key": ("_live_", "_test_", "whsec_"), "openai_key": ("sk-",), "jwt": ("eyJ",),
    "url_password": ("://",),
}


def redact(text: str) -> Redacted:
    """Replace every recognised secret with [REDACTED:<kind>]."""
    counts: Counter[str] = Counter()

    def url(match: re.Match[str]) -> str:
        counts["url_password"] += 1
        return match.group(0)[: match.start(1) - match.start(0)] + "[REDACTED:url_password]@"

    for kind, pattern in _PATTERNS:
        if not any(literal in text for literal in _LITERALS[kind]):
            continue
        if kind == "url_password":
            text = pattern.sub(url, text)
            continue
        text, n = pattern.subn(f"[REDACTED:{kind}]", text)
        if n:
            counts[kind] += n

    def assignment(match: re.Match[str]) -> str:
        value = match.group(3)
        if _NOT_LITERAL.match(value) or "[REDACTED:" in value:
            return match.group(0)
        counts[_kind(match.group(1))] += 1
        return f"{match.group(1)}{match.group(2)}[REDACTED:{_kind(match.group(1))}]{match.group(2)}"

    def bare(match: re.Match[str]) -> str:
        value = match.group(2)
        if _NOT_LITERAL.match(value) or "[REDACTED:" in value or "(" in value or _REFERENCE.match(value):
            return match.group(0)
        counts[_kind(match.group(1))] += 1
        return f"{match.group(1)}[REDACTED:{_kind(match.group(1))}]"

    # Assignments never span lines: only lines naming a key word are searched.
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        lowered = line.lower()
        if any(word in lowered for word in _HINTS):
            lines[i] = _UNQUOTED.sub(bare, _QUOTED.sub(assignment, line))
    return Redacted("".join(lines), dict(sorted(counts.items())))


def _kind(key: str) -> str:
    lowered = key.lower()
    for word in ("password", "passwd", "pwd", "passphrase"):
        if word in lowered:
            return "password"
    if "api" in lowered and "key" in lowered:
        return "api_key"
    if "token" in lowered:
        return "token"
    return "secret"
