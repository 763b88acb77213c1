"""Passwords on command lines, as scripts hold them and CI logs echo them.

Two readings: the flags a known program takes its password with (`docker login -p VALUE`,
`mysql -pVALUE`, `sshpass -p VALUE`, `redis-cli -a VALUE`), where any value but a placeholder is
the secret; and long flags named for a secret followed by a space (`--password VALUE`,
`--db-password VALUE`, `--token VALUE`), where a password flag's value is the secret unless it
is a plain word (prose: `the --password option`), and any other flag's only when it looks
random. (`--name=VALUE` is read with every other `name=value`.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ctxguard.secrets.formats import PROGRAMS
from ctxguard.secrets.names import SecretName, classify, parts

Span = tuple[int, int, str]
Judge = Callable[[SecretName, str, list[str]], bool]

# A command ends at a pipe, a `;`, `&&` or `||`; its value is one word (quotes kept out).
_VALUE = r"(?:(?P<q>[\"'])(?P<quoted>[^\"'\s]+)(?P=q)|(?P<value>[^\s\"'`\\|;&][^\s\"'`\\|;&]*))"
# The programs, in one alternation searched once a line; each group names its flag's pattern.
_PROGRAM = re.compile(
    r"\b(?:(?P<login>(?:docker|podman|buildah|skopeo|nerdctl|helm|oras|crane|regctl)\b[^|;&\n]*?\blogin)"
    r"|(?P<mysql>mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump)"
    r"|(?P<sshpass>sshpass)|(?P<redis>redis-cli))\b"
)
_FLAGS = {
    # registry logins: docker, podman, buildah, skopeo, nerdctl, helm registry, oras, crane
    "login": re.compile(rf"[ \t](?:-p|--password)(?:=|[ \t]+){_VALUE}"),
    # MySQL's clients take the password attached: `-pVALUE` (`-p VALUE` asks for it)
    "mysql": re.compile(rf"[ \t]-p{_VALUE}"),
    "sshpass": re.compile(rf"[ \t]-p[ \t]*{_VALUE}"),
    "redis": re.compile(rf"[ \t](?:-a|--pass)[ \t]+{_VALUE}"),
}
_SPACED_FLAG = re.compile(rf"(?<![\w-])--(?P<name>[A-Za-z][\w-]*)[ \t]+{_VALUE}")
_PASSWORD = SecretName("password", True)
_WORD = re.compile(r"[a-z]+")


def spans(body: str, judge: Judge) -> Iterator[Span]:
    """The secret values on one command line; `judge(secret, value, name words)` says whether a
    value under a secret name is a literal secret (placeholders, variables and masks are not)."""
    if "-" not in body:
        return
    at = 0 if any(program in body for program in PROGRAMS) else len(body)
    while (found := _PROGRAM.search(body, at)) is not None:
        at = end = _command_end(body, found.end())
        for match in _FLAGS[found.lastgroup or ""].finditer(body, found.end(), end):
            group = "quoted" if match.group("quoted") is not None else "value"
            if not match.group(group).startswith("-") and judge(_PASSWORD, match.group(group), ["password"]):
                yield match.start(group), match.end(group), "password"
    if "--" in body:
        for match in _SPACED_FLAG.finditer(body):
            secret = classify(match.group("name"))
            group = "quoted" if match.group("quoted") is not None else "value"
            value = match.group(group)
            if secret is None or value.startswith("-"):
                continue
            if secret.kind != "password" or _WORD.fullmatch(value):
                secret = SecretName(secret.kind, False)  # `--secret id=x,src=y`, `--password options`
            if judge(secret, value, parts(match.group("name"))):
                yield match.start(group), match.end(group), secret.kind


def _command_end(body: str, start: int) -> int:
    found = _END.search(body, start)
    return found.start() if found else len(body)


_END = re.compile(r"[|;]|&&")
