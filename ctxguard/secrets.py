"""What a secret looks like: vendor formats, secret-looking names and the guards against noise.

Written from the vendors' documented token formats. No pattern can match a line break (every
character class leaves them out), which is what keeps redaction from joining lines.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


def looks_random(value: str) -> bool:
    """A value that looks machine-generated: long, token characters only, mixed, high entropy."""
    if not 16 <= len(value) <= 1024 or _TOKEN_CHARS.fullmatch(value) is None or _WORDY.search(value):
        return False
    digits = sum(c.isdigit() for c in value)
    mixed = (any(c.islower() for c in value) + any(c.isupper() for c in value) + (digits > 0))
    if not digits or mixed < 2:
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= 3.3


def not_words(value: str) -> bool:
    """A value with a digit that is not words joined by _ - or . (a prefixed key's random part)."""
    return any(c.isdigit() for c in value) and _WORDY.search(value) is None


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_.~-]+")
# Three or more words joined by _ - or . (`user_profile_cache`, `my-app-key-name`): a name.
_WORDY = re.compile(r"(?:[A-Za-z][a-z]{2,}[_.-]){2,}[A-Za-z][a-z]{2,}")

_PLACEHOLDER = re.compile(
    r"(?:\$|\{|<|%\(|%[A-Za-z_]+%|\[|\*{3}|x{3,}$|X{3,}$|\.{3}|null$|none$|nil$|true$|false$"
    r"|undefined$|changeme|change[_-]me|redacted|your[_-]|example|dummy|placeholder|secret$"
    r"|password$|token$|read$|write$|\d+$)",
    re.I,
)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")  # ENV_VAR_NAME: where the secret lives


def placeholder(value: str) -> bool:
    """A value that stands for a secret rather than being one: `${VAR}`, `<token>`, `xxx`, …"""
    value = value.strip("\"'`")
    if _ENV_NAME.fullmatch(value):
        return True
    return _PLACEHOLDER.match(value) is not None


@dataclass(frozen=True)
class Rule:
    """One vendor format. The pattern runs only when one of its literals is in the text; the
    match's `group` (0: all of it) is replaced when `check` (if any) accepts it."""

    kind: str
    pattern: re.Pattern[str]
    literals: tuple[str, ...]
    group: int = 0
    check: Callable[[str], bool] | None = None


def _rule(kind: str, pattern: str, literals: tuple[str, ...], group: int = 0,
          check: Callable[[str], bool] | None = None) -> Rule:
    return Rule(kind, re.compile(pattern), literals, group, check)


# Order matters where formats overlap: Anthropic's `sk-ant-` before OpenAI's `sk-`.
RULES: tuple[Rule, ...] = (
    _rule("aws_access_key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",
          ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    _rule("github_token", r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})"
          r"(?![A-Za-z0-9_])", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _rule("gitlab_token", r"(?<![\w-])(?:gl(?:pat|ptt|dt|rt|cbt|ft|imt|oas|soat|agent|ffct)-[\w-]{20,}"
          r"(?:\.[0-9a-z]{9})?|GR1348941[\w-]{20,})(?![\w-])",
          ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-",
           "glagent-", "glffct-", "GR1348941")),
    _rule("slack_token", r"(?<![\w-])(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})(?![\w-])",
          ("xox", "xapp-")),
    _rule("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{16,}",
          ("hooks.slack.com",)),
    _rule("anthropic_key", r"(?<![\w-])sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}(?![\w-])", ("sk-ant-",)),
    _rule("openai_key", r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}(?![\w-])", ("sk-",),
          check=not_words),
    _rule("stripe_key", r"(?<![\w])(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})(?![\w])",
          ("_live_", "_test_", "whsec_")),
    _rule("google_api_key", r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])", ("AIza",)),
    _rule("google_oauth", r"(?<![\w-])(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{20,})(?![\w-])",
          ("GOCSPX-", "ya29.")),
    _rule("npm_token", r"(?<![\w])npm_[A-Za-z0-9]{36}(?![\w])", ("npm_",)),
    _rule("pypi_token", r"(?<![\w-])pypi-AgE[A-Za-z0-9_-]{50,}(?![\w-])", ("pypi-AgE",)),
    _rule("sendgrid_key", r"(?<![\w-])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}(?![\w-])", ("SG.",)),
    _rule("twilio_key", r"(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])", ("SK",)),
    _rule("mailchimp_key", r"(?<![0-9A-Za-z])[0-9a-f]{32}-us\d{1,2}(?![0-9A-Za-z])", ("-us",)),
    _rule("azure_storage_key", r"(?i:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})",
          ("ccountKey", "ccountkey", "ccessKey", "ccesskey", "CCOUNTKEY", "CCESSKEY"), group=1),
    _rule("azure_sas", r"(?<=[?&;])sig=([A-Za-z0-9%+/=]{30,})", ("sig=",), group=1),
    _rule("huggingface_token", r"(?<![\w-])(?:hf|api_org)_[A-Za-z0-9]{30,}(?![\w-])", ("hf_", "api_org_"),
          check=lambda v: _WORDY.search(v) is None),
    _rule("jwt", r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?![\w-])", ("eyJ",)),
    _rule("authorization", r"(?i:\b(?:proxy-)?authorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
          r"(?i:bearer|basic|token|digest|negotiate|apikey)[ \t]+([\w.~+/-]{6,}=*)",
          ("uthorization", "UTHORIZATION"), group=1),
    _rule("authorization", r"(?<![\w-])(?:Bearer|bearer|BEARER)[ \t]+([\w.~+/-]{16,}=*)(?![\w-])",
          ("earer", "EARER"), group=1, check=looks_random),
    _rule("url_password", r"(?<=://)[^/\s:@\"'<>]*:([^/\s@\"'<>]{3,})@", ("://",), group=1),
)

PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----")
PEM_END = re.compile(r"-----END[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----")

# A line is searched for assignments only if it holds one of these (lower-cased).
HINTS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "salt", "session",
         "cookie", "private")
_NAME = (r"(?P<name>[\w.-]*?(?:pass|pwd|secret|token|key|auth|cred|signature|salt|session|cookie"
         r"|private)[\w.-]*)")
_SEPARATOR = r"[ \t]*(?:=>|:=|==?|:)[ \t]*"
# Values are matched on one line body (its ending kept aside), so none can reach the next line.
# Each pattern comes with whether its value must also look random to count, and whether it
# matches inside a line (where a lower-case word is a keyword argument, not a secret).
ASSIGNED: tuple[tuple[re.Pattern[str], bool, bool], ...] = (
    # `password = "literal"`, `"api_key": "literal"`, `token: 'literal'` anywhere on a line.
    (re.compile(rf"(?i)(?<![\w.-]){_NAME}[\"'`]?{_SEPARATOR}(?P<q>[\"'`])"
               r"(?P<value>(?:(?!(?P=q))[^\\]|\\.){4,}?)(?P=q)"), False, False),
    # `DB_PASSWORD=literal`, `password: literal` (env, YAML, INI, a diff's +/- lines), and after
    # `?`, `&`, `;`, `:` (query strings, connection strings, .npmrc's `:_authToken=`).
    (re.compile(rf"(?i)(?:^[+\- ]?[ \t]*(?:-[ \t]+)?(?:export[ \t]+|set[ \t]+)?|(?<=[?&;:,{{]))"
               rf"{_NAME}{_SEPARATOR}(?P<value>(?![\"'`])[^\s\"'`#,;&<>(){{}}\[\]]{{4,}})"
               r"(?=[ \t]*(?:$|[#&;,\"'`]))"), False, False),
    # `... DB_PASSWORD=literal` or logfmt `user=bob password=literal` inside a log or prose line:
    # `=` with no space around it, which prose does not write.
    (re.compile(rf"(?i)(?<=[ \t`\"']){_NAME}=(?P<value>(?![\"'`])[^\s\"'`#,;&<>(){{}}\[\]\\]{{4,}})"
                r"(?=$|[ \t,;&`\"'\\])"), False, True),
    # The same inside a JSON or shell string, its quotes escaped: `\"DB_PASSWORD=\\\"literal\\\"\"`.
    (re.compile(rf"(?i)(?<![\w.-]){_NAME}\\?[\"']?{_SEPARATOR}\\(?P<q>[\"'])(?P<value>[^\"'\\\s]{{4,}}?)\\(?P=q)"),
     False, False),
    # `... api_key: literal`, `secret = literal` inside a line: only a random-looking value.
    (re.compile(rf"(?i)(?<=[ \t`\"']){_NAME}{_SEPARATOR}(?P<value>(?![\"'`])[^\s\"'`#,;&<>(){{}}\[\]\\]{{16,}})"
                r"(?=$|[ \t,;&`\"'\\|])"), True, True),
)
_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[a-z][a-z0-9]*_[a-z0-9_]*")


def reference(value: str) -> bool:
    """An unquoted value that names something in code (`source.token`, `new_token`)."""
    return _REFERENCE.fullmatch(value) is not None
