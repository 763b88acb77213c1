"""Values assigned to secret names, in the syntaxes where names and values meet on a line.

Each reader takes one line's body (its ending kept aside by the caller) and yields the spans of
secret values with their kind. The syntaxes: `name = "v"` with any of `= : => := ::= :::= ?=
.= +=` and a type between (`var dbPassword string = "v"`, `val key: String = "v"`); call and
index forms (`os.environ["X_TOKEN"] = "v"`, `setProperty("X_TOKEN", "v")`); unquoted values at
a line's start (`.env`, YAML, INI, make, a diff's +/- lines), running to the end of the token;
`name=value` inside a line (logfmt, query and connection strings, flags); env lists that put
the name in another field (`{"name": "DB_PASSWORD", "value": "v"}`, XML entries), on one line or
over the next lines (`pending`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Generator, Iterator

from ctxguard.secrets import commands
from ctxguard.secrets.names import SecretName, classify, parts
from ctxguard.secrets.values import CAMEL_NAME, kept, looks_random, punctuated, reference, token_like

Span = tuple[int, int, str]

_NAME = r"[$@]?[A-Za-z_][\w.-]*(?:::[\w.-]+)*"
_SEP = r"(?P<sep>=>|:::=|::=|:=|\?\?=|\?=|\.=|\+=|!==?|===?|=|:)"
# The value: runs of characters that are no quote and no backslash (each taken whole, never
# given back), quotes of another kind, escaped characters; it ends at the first quote of its own
# kind not escaped. (Every character has one way in: no backtracking over a run that fails.)
_QUOTED = r"(?:[rRbBuUfF]{1,2}(?=[\"'])|@(?=\"))?(?P<q>[\"'`])(?P<value>(?:[^\\\"'`]++|(?!(?P=q))[\"'`]|\\.)*?)(?P=q)"

# `name = "v"`, `"name": "v"`, `NAME ?= "v"`, `$name .= "v"`, `env["NAME"] = "v"`,
# `var name T = "v"`, `name: T = "v"` (the type is `type`; in `String name = "v"` the name is).
_ASSIGN_QUOTED = re.compile(
    rf"(?<![\w.$-])(?P<nq>[\"'`]?)(?P<name>{_NAME})[\"'`]?\]?"
    r"(?:[ \t]*:[ \t]*[A-Za-z_][\w.\[\]|<>?, ]*?[ \t]*(?==)|[ \t]+(?P<type>[A-Za-z_*\[\]][\w.\[\]*<>]*)[ \t]*(?==))?"
    rf"[ \t]*{_SEP}[ \t]*{_QUOTED}"
)
_SEP_QUOTE = re.compile(r"[=:>][ \t]*(?:[rRbBuUfF]{1,2}|@)?[\"'`]")  # where a _SEP meets a _QUOTED
# `if ("v" == password)`: a literal compared with a secret name.
_COMPARED = re.compile(rf"{_QUOTED}[ \t]*(?P<sep>!==?|===?)[ \t]*(?P<name>{_NAME})(?![\w(])")
_QUOTE_COMPARED = re.compile(r"[\"'`][ \t]*[!=]=")  # where a literal meets the comparison (a line without it has none)
# `setProperty("NAME", "v")`, `environ.setdefault("NAME", "v")`, `getenv("NAME", "default")`.
_PAIR = re.compile(
    r"\b(?:set|put|get|add|with|env|define)\w*[ \t]*\([ \t]*"
    rf"(?P<nq>[\"'])(?P<name>[\w.-]+)(?P=nq)[ \t]*,[ \t]*{_QUOTED}(?![ \t]*:)",
    re.I,
)
# `{"name": "DB_PASSWORD", "value": "v"}`, `<entry name="X" value="v"/>`, `<X>v</X>`.
_ENTRY = re.compile(
    r"[\"']?(?:name|key)[\"']?[ \t]*[:=][ \t]*[\"'](?P<name>[\w.-]+)[\"'][ \t]*,?[ \t]*"
    r"(?P<vq>[\"']?)value[\"']?[ \t]*[:=][ \t]*(?P<q>[\"']?)(?:\\[\"'])?(?P<value>[^\"'\s,}\\]+)",
    re.I,
)  # (a value never holds a backslash: `"\"v\""` is the value v quoted, and its escape stays)
_XML_ELEMENT = re.compile(r"<(?P<name>[\w.-]+)>[ \t]*(?P<value>[^<\s][^<]{3,}?)[ \t]*</(?P=name)>")
# Unquoted, from a line's start: `.env`, YAML, INI, make, shell `export`, a diff's +/- lines, a
# GitHub Actions log's `  NAME: value` (the job's env, printed under its step).
_LEADING = re.compile(
    r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z[ \t]+)?"  # a GitHub Actions log line's time
    r"[+ -]?[ \t]*(?:-[ \t]+)?(?:(?:export|set|setx|ENV|ARG|declare(?:[ \t]+-\w+)*|local|readonly)[ \t]+)?"
    rf"(?P<nq>[\"']?)(?P<name>{_NAME})(?P=nq)[ \t]*{_SEP}[ \t]*(?P<value>[^\s\"'`|>].*?)[ \t]*$"
)
# A Dockerfile's older `ENV NAME value` (the value is the rest of the line).
_DOCKER_ENV = re.compile(
    r"^[+ -]?[ \t]*ENV[ \t]+(?P<name>[A-Za-z_][\w.-]*)[ \t]+(?P<q>[\"']?)(?P<value>[^\s\"'=][^\s\"']*)(?P=q)[ \t]*$"
)
# A quoted label of words as a key: `"Database password": "v"` (a form's or a vault export's field).
_LABEL = re.compile(
    rf"(?P<nq>[\"'])(?P<name>[A-Za-z][A-Za-z0-9]*(?:[ \t]+[A-Za-z0-9]+){{1,5}})(?P=nq)[ \t]*[:=][ \t]*{_QUOTED}"
)
# `name=value` inside a line: logfmt, a query or connection string, a flag, an escaped newline.
# (The value is taken whole, never given back: `password=SecretStr(…)` is a call, and no value is
# ever cut inside its identifier.)
_INLINE_PAIR = r"(?:--?)?(?P<name>[A-Za-z_][\w.-]*)=(?P<value>[^\s\"'`{}<>()\[\]]{3,}+)(?![{(\[<])"
_INLINE = re.compile(r"(?<=[ \t`\"'?&;,{(\[/:])" + _INLINE_PAIR)  # not `token=Token{…}`: an object
_INLINE_FIRST = re.compile(_INLINE_PAIR)  # (the same, where the line starts)
# ` api_key: value` inside a line with spaces around the separator: only a random-looking value.
_INLINE_SPACED = re.compile(
    rf"(?<=[ \t`\"'])(?P<name>{_NAME})[ \t]*(?::|=)[ \t]*"
    r"(?P<value>(?![\"'`])[^\s\"'`#,;&<>(){}\[\]\\]{16,})(?=$|[ \t,;&`\"'\\|])"
)
# Where such a value can follow its separator: a line without it has none (the reader's scan,
# a name tried at every word, is skipped).
_SPACED_VALUE = re.compile(r"[:=][ \t]*[^\s\"'`#,;&<>(){}\[\]\\]{16}")
# The same inside a JSON or shell string, its quotes escaped: `\"password\": \"v\"`.
_ESCAPED = re.compile(
    rf"(?<![\w.-])(?P<name>{_NAME})\\?[\"']?[ \t]*(?:=|:)[ \t]*\\(?P<q>[\"'])"
    r"(?P<value>[^\"'\\\s]{4,}?)\\(?P=q)"
)
_SEP_ESCAPED = re.compile(r"[=:][ \t]*\\[\"']")  # where such a value starts (a line without it has none)
# What can stand between where a name of _ESCAPED starts and its separator (its characters, an
# escaped quote, blanks), read backwards from the separator: no further than _NAME_REACH.
_BEFORE_SEPARATOR = re.compile(r"[\w.$@:\\\"' \t-]*")
_NAME_REACH = 256

# A name whose value comes on a following line: `- name: DB_PASSWORD`, `<dbPassword>`, a Terraform
# `variable "db_password" {` whose `default = "v"` follows.
_NAME_LINE = re.compile(
    r"^[+ -]?[ \t]*(?:-[ \t]+)?(?:[\"']?(?:name|key)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?P<name>[\w.-]+)[\"']?,?|<(?P<tag>[\w.-]+)>|variable[ \t]+\"(?P<var>[\w.-]+)\"[ \t]*\{)[ \t]*$",
    re.I,
)
_VALUE_LINE = re.compile(
    r"^[+ -]?[ \t]*(?:(?P<vq>[\"']?)(?:value|default)[\"']?[ \t]*[:=][ \t]*"
    r"(?P<q>[\"']?)(?:\\[\"'])?(?P<value>[^\"'\s,}\\]+)"
    r"|(?P<bare>[^\s<>\"'=:]{8,})[ \t]*$)",
    re.I,
)


def spans(body: str) -> list[Span]:
    """The secret values assigned on one line, as (start, end, kind), without overlaps (the
    first reader's span wins), in the order of the line."""
    found: list[Span] = []
    starts: list[int] = []  # (found is kept sorted: spans that never overlap end in order too)
    for start, end, kind in _candidates(body):
        at = bisect.bisect_right(starts, start)
        if end <= start or (at and found[at - 1][1] > start) or (at < len(found) and found[at][0] < end):
            continue
        found.insert(at, (start, end, kind))
        starts.insert(at, start)
    return found


def pending(body: str) -> SecretName | None:
    """A secret name alone on its line, whose value the next lines give (env lists, XML)."""
    match = _NAME_LINE.match(body)
    if match is None:
        return None
    return classify(match.group("name") or match.group("tag") or match.group("var"))


def pending_value(body: str, secret: SecretName, name: str = "") -> Span | None:
    """The value line after a pending name: `value: v`, `"value": "v"` or a bare token."""
    match = _VALUE_LINE.match(body)
    if match is None:
        return None
    group = "value" if match.group("value") is not None else "bare"
    if group == "value" and match.group("vq") == '"' and not match.group("q"):
        return None  # (an unquoted JSON value: a number, true, false or null)
    value = match.group(group)
    if not _secret(secret, value, quoted=bool(match.group("q")), code=False, words=parts(name)):
        return None
    return match.start(group), match.end(group), secret.kind


def _candidates(body: str) -> Iterator[Span]:  # noqa: C901 (a reader per assignment syntax)
    # Each reader runs only where the characters its syntax needs are on the line.
    lowered = body.lower()
    if "value" in lowered:
        for match in _ENTRY.finditer(body):
            if match.group("vq") == '"' and not match.group("q"):
                continue  # (an unquoted JSON value is a number, true, false or null: a marker would not parse)
            yield from _judge(match, match.group("name"), bool(match.group("q")), code=False)
    if "</" in body:
        for match in _XML_ELEMENT.finditer(body):
            value = match.group("value")
            inner = value[1:-1] if value.startswith("{") and value.endswith("}") else value  # Jenkins' {…}
            secret = classify(match.group("name"))
            if secret is not None and _secret(secret, inner, quoted=True, code=False, words=parts(match.group("name"))):
                yield match.start("value"), match.end("value"), secret.kind
    quoted = "'" in body or '"' in body or "`" in body
    if quoted:
        # (Every assignment ends in a separator and a quote: a line without one skips the reader
        # that would try a name at each of its words.)
        for match in _ASSIGN_QUOTED.finditer(body) if _SEP_QUOTE.search(body) else ():
            name = match.group("name")
            if match.group("type") and classify(name.lstrip("$@")) is None:
                name = match.group("type")  # `String dbPassword = "v"`: the name follows the type
            elif match.group("type") and not _GO_TYPE.fullmatch(match.group("type")):
                continue  # `Pass conds='x'` in prose: no type between a name and its value
            if _compared_word(match):
                continue
            yield from _judge(match, name, quoted=True, code=False)
        if ("==" in body or "!=" in body) and _QUOTE_COMPARED.search(body):
            for match in _COMPARED.finditer(body):
                if not _compared_word(match):
                    yield from _judge(match, match.group("name"), quoted=True, code=False)
        if "," in body and "(" in body:  # (a call's parenthesis and its comma)
            for match in _PAIR.finditer(body):
                yield from _judge(match, match.group("name"), quoted=True, code=False)
        if "\\" in body and _SEP_ESCAPED.search(body):
            for match in _escaped(body):
                yield from _judge(match, match.group("name"), quoted=True, code=False)
        if " " in body and _SEP_QUOTE.search(body):
            for match in _LABEL.finditer(body):  # a label names a field a person reads: random values only
                secret = classify(match.group("name"))
                if secret is not None:
                    yield from _judged(match, SecretName(secret.kind, False), quoted=True, code=False)
    separated = ":" in body or "=" in body  # (every separator of _SEP holds one)
    leading = _LEADING.match(body) if separated else None
    if leading is not None:
        yield from _leading(leading)
    elif "ENV" in body and (docker := _DOCKER_ENV.match(body)) is not None:
        name = docker.group("name")
        yield from _judged(docker, classify(name), quoted=bool(docker.group("q")), code=False, env=name.isupper())
    if "=" in body:
        at = 0
        # Where the line's first word starts, when `_leading` has read its one value (else a
        # `NAME=value cmd` prefix or a `--flag=value \` continuation is read here).
        lead = len(body) - len(body.lstrip(" \t+-")) if leading and not _SPACE.search(leading.group("value")) else -1
        paren = body.find("(")  # (code: a call's keyword arguments)
        first = _INLINE_FIRST.match(body)  # (`PGPASSWORD=v psql`: a prefix at the line's start)
        while (inline := first or _INLINE.search(body, at)) is not None:
            first = None
            end = yield from _inline(inline, body, lead, paren)
            at = max(inline.start("value"), end)  # a query string's next `&name=` is read on its own
    for match in _INLINE_SPACED.finditer(body) if separated and _SPACED_VALUE.search(body) else ():
        secret = classify(match.group("name").lstrip("$@"))
        value = match.group("value")
        if secret is not None and (looks_random(value) or (secret.sure and token_like(value) and not reference(value))):
            yield match.start("value"), match.end("value"), secret.kind  # (`rsa.RSAPrivateKey` is a type)
    yield from commands.spans(body, _on_command_line)


def _escaped(body: str) -> Iterator[re.Match[str]]:
    """The matches of _ESCAPED in body, as finditer finds them, each searched for from where
    the name before the next separator could start (a match holds a separator, and its name
    starts after the separator before it), not at every word: a JSON document's escaped text
    is long lines of words and few separators."""
    at = 0
    for separator in _SEP_ESCAPED.finditer(body):
        end = separator.start()
        if end < at:
            continue  # (inside the match before)
        low = max(at, end - _NAME_REACH)
        found = _BEFORE_SEPARATOR.match(body[low:end][::-1])
        run = found.end() if found is not None else 0
        match = _ESCAPED.search(body, end - run if run < end - low or low == at else at)
        if match is None:
            return
        yield match
        at = match.end()


def _compared_word(match: re.Match[str]) -> bool:
    """`if token == "with"`, `token += "-tags"`: a comparison with a word, an append; a literal
    that is not a word (`apikey == "m{{h}o)p…"`) is a secret the code checks against."""
    if match.group("sep") not in ("==", "===", "!=", "!==", "+="):
        return False
    value = match.group("value")
    return not looks_random(value) and re.fullmatch(r"[\w./-]*", value) is not None


def _judge(match: re.Match[str], name: str, quoted: bool, code: bool) -> Iterator[Span]:
    name = name.lstrip("$@")
    yield from _judged(match, classify(name), quoted, code)


def _judged(
    match: re.Match[str], secret: SecretName | None, quoted: bool, code: bool, env: bool = False
) -> Iterator[Span]:
    """The match's `value` group as a span, if it is a secret under this name."""
    if secret is not None and _secret(secret, match.group("value"), quoted, code, parts(match.group("name")), env):
        yield match.start("value"), match.end("value"), secret.kind


def _on_command_line(secret: SecretName, value: str, words: list[str]) -> bool:
    return _secret(secret, value, quoted=False, code=False, words=words, env=True)


_SPACE = re.compile(r"\s")


def _leading(match: re.Match[str]) -> Iterator[Span]:
    """`NAME=value`, `name: value`: the value is the line's one remaining token (with anything
    more, `token: str | None = None`, `x = a or b`, the line is code or prose)."""
    name = match.group("name").lstrip("$@")
    secret = classify(name)
    if secret is None or (match.group("nq") == '"' and match.group("sep") == ":"):
        return  # (an unquoted JSON value is a number, true, false or null: a marker would not parse)
    value, start = match.group("value"), match.start("value")
    comment = re.search(r"[ \t]+#|[\"\\]", value)  # `KEY=v # note`; a quote or escape ends it too
    if comment:
        value = value[: comment.start()].rstrip()
        if _unclosed(value):
            return  # `Final[Literal["x"]]`, `f("x")`: an expression the quote stands inside
    if re.search(r"\s", value) or re.match(r"[rRbBuUfF]{1,2}[\"']", value):
        return
    code = value.endswith((",", ";")) or "(" in value or bool(re.search(r"[a-z][A-Z]", name))
    code = code or match.string[match.start("sep") - 1 : match.start("sep")] == " " != match.group("sep")[:1]
    closers = _unopened_closers(value)
    if closers:  # `password=None):` ends an argument list: the value is before its `)`
        value, code = value[: -len(closers)], True
    value = value.rstrip(",;") if code or value.endswith(",") else value
    if _secret(secret, value, quoted=False, code=code, words=parts(name), env=name.isupper()):
        yield start, start + len(value), secret.kind


def _unclosed(value: str) -> bool:
    """Whether a value opens a bracket it does not close."""
    return sum(value.count(c) for c in "([{") > sum(value.count(c) for c in ")]}")


def _unopened_closers(value: str) -> str:
    """The brackets, and what follows them, that close what the value never opened: `None):`
    ends with `):`, `f(x)` ends with nothing. Redaction never takes them."""
    depth = 0
    for i, c in enumerate(value):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return value[i:]
            depth -= 1
    return ""


def _inline(match: re.Match[str], body: str, lead: int, paren: int) -> Generator[Span, None, int]:
    """The value of one `name=value` inside a line; returns where the value (as cut) ends.
    `lead`: where the line's first word starts; `paren`: its first `(` (or -1). Both are found
    once a line, so a line of many pairs is read in one pass."""
    name = match.group("name").lstrip("$@")
    value, start = match.group("value"), match.start("value")
    first = match.start() <= lead  # at the line's start, `_leading` reads it
    secret = None if first or value.startswith("=") else classify(name)
    if secret is None:
        return start  # (nothing to cut: `id=375441`, the name of no secret)
    before = body[match.start() - 1] if match.start() else ""
    stops = {"?": "&#", "&": "&#", ";": ";", ",": ",)}", "{": ",}", "(": ",)", "[": ",]"}.get(before, "")
    cut = min((i for i in (value.find(c) for c in stops + "\\") if i >= 0), default=len(value))
    value = value[:cut]
    code = (
        0 <= paren < match.start()
        or (before != "" and before in "(,")
        or body[max(0, match.start() - 2) : match.start()] == ", "
    )
    if code:
        value = re.split(r"[),;\]}]", value, maxsplit=1)[0]
    value = value.rstrip(",);]}:")
    if len(value) >= 3 and _secret(secret, value, quoted=False, code=code, words=parts(name)):
        yield start, start + len(value), secret.kind
        return start + len(value)
    return start


def _secret(secret: SecretName, value: str, quoted: bool, code: bool, words: list[str], env: bool = False) -> bool:
    """Whether a value under this name is a literal secret (see ctxguard.secrets.values). An
    `env` name (`API_TOKEN`) outside code holds a value, never a reference to a variable."""
    if len(value.strip()) < 3 or kept(value, words) or (not env and CAMEL_NAME.fullmatch(value.strip())):
        return False
    if value.strip() in _KEYWORDS:
        return False  # `password=None`, `token: null`: a keyword is never a secret
    if looks_random(value) or punctuated(value):
        return True
    if not secret.sure:
        return False
    if not quoted and reference(value) and (code or (_CODE_VALUE.search(value) is not None and not env)):
        return False  # `token: source.token`, `cancelToken: defaultToConfig2`, `password = new_password`
    if not quoted and code and _IDENTIFIER.fullmatch(value):
        return False  # `"SECRET_BLOCK": session,`: a variable in code
    return True


_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_KEYWORDS = frozenset("None True False null nil NULL true false undefined nullptr NaN".split())
_GO_TYPE = re.compile(r"\*?(?:\[\])?(?:string|String|str|bytes?|byte|\[\]byte|char\*?|CharSequence|SecretStr|Secret)")


_CODE_VALUE = re.compile(r"[.(\[]|->|::|^(?:self|this)\b|^[a-z_$][a-z$]*[A-Z][a-z]")
