"""Secrets under generated names: secret word x position x style x file syntax, random values.

    python bench/secret_names.py [--rounds 1] [--seed 2026] [--show 5] [--by syntax|position|style|word]

A name is built from a secret word (`password`, `token`, `api key`, `pat`, ...) at one of four
positions: alone (`PASSWORD`), after a qualifier (`DB_PASSWORD`), before a suffix
(`PASSWORD_TEST`) or both (`DB_PASSWORD_TEST`); written in one of seven styles (UPPER_SNAKE,
lower_snake, kebab-case, camelCase, PascalCase, dotted.name, a quoted "Label"); and assigned a
fresh random value (alphanumeric, or punctuated like `Xk9!mQ2@pL7^wR4z`) in one of the syntaxes a
repository or a CI log holds (.env, shell export, YAML, TOML, INI, JSON, Terraform variable
default and tfvars, Dockerfile `ENV` in both forms, docker-compose list and map, a Kubernetes
Secret's stringData and a pod's env list, a GitHub Actions log line). A value counts as caught
when it no longer appears after redaction. A second table tries command lines that carry a
password (`docker login -p`, `mysql -pVALUE`, `--db-password=VALUE \\`, `PGPASSWORD=VALUE psql`).

The words, qualifiers and suffixes are drawn from lists written for this benchmark; none is
special-cased in ctxguard (ctxguard reads a name by its parts).
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ctxguard.secrets.redact import redact  # noqa: E402

WORDS: tuple[tuple[str, ...], ...] = (
    ("password",),
    ("passwd",),
    ("pwd",),
    ("passphrase",),
    ("token",),
    ("secret",),
    ("api", "key"),
    ("pat",),
    ("access", "token"),
    ("auth", "token"),
    ("client", "secret"),
    ("secret", "key"),
)
QUALIFIERS: tuple[tuple[str, ...], ...] = (
    ("db",),
    ("redis", "cache"),
    ("cache",),
    ("smtp",),
    ("github",),
    ("azure", "devops"),
    ("jwt",),
    ("admin",),
    ("mysql", "root"),
    ("rabbitmq",),
    ("ldap", "bind"),
    ("sentry",),
    ("registry",),
    ("index",),
    ("my",),
)
SUFFIXES: tuple[tuple[str, ...], ...] = (
    ("test",),
    ("vault",),
    ("owner",),
    ("client",),
    ("last",),
    ("rotated",),
    ("storage",),
    ("confirmation",),
    ("prod",),
    ("staging",),
    ("old",),
    ("new",),
    ("primary",),
    ("backup",),
    ("b64",),
    ("value",),
    ("ci",),
    ("v2",),
    ("override",),
    ("default",),
)
POSITIONS = ("alone", "qualifier", "suffix", "both")


def _style(words: list[str], style: str) -> str:
    if style == "upper":
        return "_".join(words).upper()
    if style == "snake":
        return "_".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "camel":
        return words[0] + "".join(w.title() for w in words[1:])
    if style == "pascal":
        return "".join(w.title() for w in words)
    if style == "dotted":
        return ".".join(words)
    return " ".join(w.title() if i == 0 else w for i, w in enumerate(words))  # a label


STYLES = ("upper", "snake", "kebab", "camel", "pascal", "dotted", "label")

Syntax = Callable[[str, str], str]
# syntax -> (the styles its names are written in, how a name and a value sit in it)
SYNTAXES: dict[str, tuple[tuple[str, ...], Syntax]] = {
    "env": (("upper", "snake"), lambda n, v: f"{n}={v}\n"),
    "export": (("upper", "snake"), lambda n, v: f"export {n}='{v}'\n"),
    "yaml": (("upper", "snake", "kebab", "camel"), lambda n, v: f"app:\n  {n}: {v}\n"),
    "yaml-quoted": (("upper", "snake", "kebab", "camel", "label"), lambda n, v: f'app:\n  "{n}": "{v}"\n'),
    "toml": (("snake", "kebab", "camel"), lambda n, v: f'[app]\n{n} = "{v}"\n'),
    "ini": (("snake", "upper", "dotted", "camel"), lambda n, v: f"[app]\n{n} = {v}\n"),
    "properties": (("dotted", "camel", "snake"), lambda n, v: f"{n}={v}\n"),
    "json": (("snake", "camel", "pascal", "kebab", "upper", "label"), lambda n, v: json.dumps({"app": {n: v}}) + "\n"),
    "terraform-variable": (
        ("snake",),
        lambda n, v: f'variable "{n}" {{\n  type      = string\n  default   = "{v}"\n  sensitive = true\n}}\n',
    ),
    "tfvars": (("snake",), lambda n, v: f'{n} = "{v}"\n'),
    "dockerfile-env-space": (("upper",), lambda n, v: f"FROM python:3.12-slim\nENV {n} {v}\nRUN make\n"),
    "dockerfile-env-eq": (("upper",), lambda n, v: f"FROM python:3.12-slim\nENV {n}={v} APP_ENV=prod\n"),
    "compose-list": (("upper",), lambda n, v: f"services:\n  web:\n    environment:\n      - {n}={v}\n"),
    "compose-map": (("upper",), lambda n, v: f"services:\n  web:\n    environment:\n      {n}: {v}\n"),
    "k8s-secret": (
        ("snake", "kebab", "upper", "dotted"),
        lambda n, v: f"apiVersion: v1\nkind: Secret\ntype: Opaque\nstringData:\n  {n}: {v}\n",
    ),
    "k8s-env-list": (("upper",), lambda n, v: f'        env:\n          - name: {n}\n            value: "{v}"\n'),
    "actions-log": (
        ("upper",),
        lambda n, v: (
            f"2026-11-27T10:00:00.1234567Z ##[group]Run make deploy\n2026-11-27T10:00:00.1234568Z   {n}: {v}\n"
        ),
    ),
}

ALNUM = string.ascii_letters + string.digits
PUNCT = "!@%^*~+"


def value(rng: random.Random, punctuated: bool) -> str:
    """A fresh random value: 20-32 characters with upper and lower case and digits, or 16 with
    punctuation among them."""
    while True:
        if punctuated:
            chars = [rng.choice(ALNUM) for _ in range(16)]
            for at in rng.sample(range(1, 15), 3):
                chars[at] = rng.choice(PUNCT)
            out = "".join(chars)
        else:
            out = "".join(rng.choice(ALNUM) for _ in range(rng.randrange(20, 33)))
        if any(c.isdigit() for c in out) and any(c.isupper() for c in out) and any(c.islower() for c in out):
            return out


def name_words(rng: random.Random, position: str, word: tuple[str, ...]) -> list[str]:
    words = list(word)
    if position in ("qualifier", "both"):
        words = list(rng.choice(QUALIFIERS)) + words
    if position in ("suffix", "both"):
        words = words + list(rng.choice(SUFFIXES))
    return words


Cell = tuple[str, str, str, str]  # (syntax, position, style, secret word)


def measure(rounds: int, seed: int) -> dict[Cell, tuple[int, int, list[str]]]:
    """Per (syntax, position, style, secret word): values caught, tried, and the texts that
    kept theirs. Each (syntax, position, style) tries every secret word `rounds` times with each
    value shape (the qualifier and the suffix drawn afresh each time)."""
    rng = random.Random(seed)
    scores: dict[Cell, tuple[int, int, list[str]]] = {}
    for syntax, (styles, write) in SYNTAXES.items():
        for position in POSITIONS:
            for style in styles:
                for word in WORDS:
                    caught = tried = 0
                    misses: list[str] = []
                    for _ in range(rounds):
                        for punctuated in (False, True):
                            words = name_words(rng, position, word)
                            secret = value(rng, punctuated)
                            text = write(_style(words, style), secret)
                            tried += 1
                            if secret in redact(text).text:
                                misses.append(text)
                            else:
                                caught += 1
                    scores[(syntax, position, style, " ".join(word))] = (caught, tried, misses)
    return scores


# Command lines that carry a password, as CI logs echo them (`+ ` is bash's xtrace).
COMMANDS: dict[str, Callable[[str], str]] = {
    "docker login -p": lambda v: f"+ docker login -u ci-bot -p {v} registry.example.com\n",
    "docker login --password": lambda v: f"docker login --username ci-bot --password {v} ghcr.io\n",
    "podman login -p": lambda v: f"podman login -u bot -p {v} quay.io\n",
    "sshpass -p": lambda v: f"sshpass -p {v} ssh deploy@10.0.0.5 'systemctl restart app'\n",
    "mysql -pVALUE": lambda v: f"mysql -h db.internal -u root -p{v} app < dump.sql\n",
    "mariadb --password=": lambda v: f"mariadb -u root --password={v} -e 'select 1'\n",
    "--db-password= continuation": lambda v: (
        f"./manage migrate \\\n    --db-host=db.internal \\\n    --db-password={v} \\\n    --verbose\n"
    ),
    "--token VALUE": lambda v: f"2026-11-27T10:00:01.0000000Z ./release.sh --token {v} --tag v1.2.3\n",
    "--secret=VALUE": lambda v: f"deploy --secret={v}\n",
    "PGPASSWORD=VALUE psql": lambda v: f"PGPASSWORD={v} psql -h db -U app -c 'select 1'\n",
    "+ PGPASSWORD=VALUE psql": lambda v: f"+ PGPASSWORD={v} psql -h db -U app\n",
    "env NAME=VALUE cmd": lambda v: f"env DB_PASSWORD={v} python manage.py migrate\n",
    "redis-cli -a": lambda v: f"redis-cli -h cache.internal -a {v} ping\n",
    "curl -u user:VALUE": lambda v: f"curl -u admin:{v} https://ci.example.com/api/json\n",
}


def commands(rounds: int, seed: int) -> dict[str, tuple[int, int, list[str]]]:
    rng = random.Random(seed + 1)
    out: dict[str, tuple[int, int, list[str]]] = {}
    for form, write in COMMANDS.items():
        caught = tried = 0
        misses: list[str] = []
        for _ in range(rounds * 40):
            secret = value(rng, punctuated=rng.random() < 0.3)
            text = write(secret)
            tried += 1
            if secret in redact(text).text:
                misses.append(text)
            else:
                caught += 1
        out[form] = (caught, tried, misses)
    return out


def _table(scores: dict[Cell, tuple[int, int, list[str]]], by: str, show: int) -> None:
    axis = {"syntax": 0, "position": 1, "style": 2, "word": 3}[by]
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: dict[str, list[str]] = defaultdict(list)
    for cell, (caught, tried, missed) in scores.items():
        rows[cell[axis]][0] += caught
        rows[cell[axis]][1] += tried
        misses[cell[axis]].extend(missed)
    print(f"{by:<24} {'caught':>14}")
    for key, (caught, tried) in rows.items():
        print(f"{key:<24} {caught:>5} / {tried:<5} {caught / max(1, tried):7.1%}")
        for text in misses[key][:show]:
            print(f"    miss: {text!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1, help="values per cell and value shape")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show", type=int, default=0, help="print this many misses per row")
    parser.add_argument("--by", choices=["syntax", "position", "style", "word"], action="append")
    args = parser.parse_args()
    scores = measure(args.rounds, args.seed)
    for by in args.by or ["syntax", "position"]:
        _table(scores, by, args.show)
        print()
    caught = sum(s[0] for s in scores.values())
    tried = sum(s[1] for s in scores.values())
    worst = sorted((s[0] / s[1], cell) for cell, s in scores.items())[:5]
    print(f"all names                {caught:>5} / {tried:<5} {caught / tried:7.1%}")
    print("lowest cells: " + ", ".join(f"{'/'.join(cell)} {share:.0%}" for share, cell in worst))
    print()
    print(f"{'command line':<32} {'caught':>14}")
    for form, (hit, tries, missed) in commands(args.rounds, args.seed).items():
        print(f"{form:<32} {hit:>5} / {tries:<5} {hit / max(1, tries):7.1%}")
        for text in missed[: args.show]:
            print(f"    miss: {text!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
