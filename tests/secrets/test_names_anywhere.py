"""A secret word anywhere in a name, in every syntax; command-line passwords; code stays code.

The cells come from bench/secret_names.py (secret word x position x style x syntax, fresh random
values): every cell is checked here, so a syntax that falls below its target is named.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from ctxguard.secrets.names import SecretName, classify
from ctxguard.secrets.redact import redact
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secret_names  # noqa: E402


def test_every_syntax_position_and_secret_word_catches_at_least_95_percent() -> None:
    scores = secret_names.measure(rounds=1, seed=11)
    by: dict[str, list[int]] = {}
    for (syntax, position, _, word), (caught, tried, _) in scores.items():
        for key in (syntax, position, word):
            by.setdefault(key, [0, 0])
            by[key][0] += caught
            by[key][1] += tried
    assert set(by) >= set(secret_names.SYNTAXES) | set(secret_names.POSITIONS) | {"pat", "api key"}
    low = {key: f"{c}/{t}" for key, (c, t) in by.items() if c < 0.95 * t}
    assert low == {}


def test_every_command_line_form_is_caught() -> None:
    missed = {form: miss[:1] for form, (c, t, miss) in secret_names.commands(rounds=1, seed=11).items() if c < t}
    assert missed == {}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("DB_PASSWORD_TEST", SecretName("password", False)),
        ("API_KEY_TEST", SecretName("api_key", False)),
        ("password_confirmation", SecretName("password", False)),
        ("TOKEN_VAULT", SecretName("token", False)),
        ("GITHUB_TOKEN_OWNER", SecretName("token", False)),
        ("JWT_SECRET_LAST", SecretName("secret", False)),
        ("DB_PASSWORD_PROD", SecretName("password", True)),
        ("GITHUB_PAT", SecretName("token", False)),
        ("AZURE_DEVOPS_PAT", SecretName("token", False)),
        ("my_pat", SecretName("token", False)),
        ("PWD", SecretName("password", False)),  # the shell's working directory, unless random
        ("api.key.primary", SecretName("api_key", False)),
        # what the value is *about* the secret: never the secret
        ("PASSWORD_MIN_LENGTH", None),
        ("password_hash", None),
        ("TOKEN_URL", None),
        ("SECRET_KEY_ID", None),
        ("SignatureAlgorithmOID.RSA_WITH_SHA224", None),
        ("PATH", None),
        ("URL_PATTERN", None),
    ],
)
def test_a_secret_word_is_read_wherever_it_stands(name: str, expected: SecretName | None) -> None:
    assert classify(name) == expected


@pytest.mark.parametrize(
    "text",
    [
        "DB_PASSWORD_TEST={v}\n",
        "GITHUB_PAT={v}\n",
        'AZURE_DEVOPS_PAT: "{v}"\n',
        'my_pat = "{v}"\n',
        "CACHE_PASSWORD={p}\n",
        "REDIS_CACHE_PASSWORD={p}\n",
        "smtp_password_client: {p}\n",
        "FROM alpine\nENV DB_PASSWORD {v}\n",
        "FROM alpine\nENV DB_PASSWORD={v} OTHER=1\n",
        'variable "db_password" {{\n  type    = string\n  default = "{p}"\n}}\n',
        "2026-11-27T10:00:00.1234567Z   DB_PASSWORD: {p}\n",
        '{{"Database password": "{v}"}}\n',
    ],
)
def test_random_values_go_under_names_with_the_word_anywhere(text: str) -> None:
    values = {"v": "Zk3vQ9pL2mX8wR4tY7uB1nC6", "p": "Xk9!mQ2@pL7^wR4z"}
    written = text.format(**values)
    out = redact(written).text
    assert values["v"] not in out and values["p"] not in out
    assert out.count("\n") == written.count("\n")


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("+ docker login -u bot -p Zk3vQ9pL2mX8 registry.example.com", "Zk3vQ9pL2mX8"),
        ("podman login --password=Zk3vQ9pL2mX8 quay.io", "Zk3vQ9pL2mX8"),
        ("sshpass -p 'hunter2x' ssh deploy@host", "hunter2x"),
        ("mysql -u root -phunter2x app", "hunter2x"),
        ("redis-cli -a hunter2x ping", "hunter2x"),
        ("    --db-password=hunter2x \\", "hunter2x"),
        ("PGPASSWORD=hunter2x psql -h db", "hunter2x"),
        ("./deploy --password hunter2x --verbose", "hunter2x"),
        ("./release --token Zk3vQ9pL2mX8wR4tY7uB1nC6", "Zk3vQ9pL2mX8wR4tY7uB1nC6"),
    ],
)
def test_command_line_passwords_go(line: str, secret: str) -> None:
    assert secret not in redact(line).text


@pytest.mark.parametrize(
    "line",
    [
        "docker login -u bot --password-stdin ghcr.io",
        "docker login -u bot -p $REGISTRY_PASSWORD ghcr.io",
        "mysql -u root -p app",  # asks for it
        "docker build --secret id=npmrc,src=$HOME/.npmrc .",
        "Use the --username and --password options instead of the URL.",
        "./release --token $GITHUB_TOKEN",
        "./release --token-file /run/secrets/token",
    ],
)
def test_command_lines_without_a_literal_password_stay(line: str) -> None:
    assert redact(line).text == line


# Code a reviewer reads, each line once rewritten by an earlier reader (a type, a dotted name, a
# number, an annotation, a call): kept whole.
CODE = [
    "    private_key: rsa.RSAPrivateKey",
    "def sign(private_key: rsa.RSAPrivateKey, data: bytes) -> bytes:",
    "    key: ed25519.Ed25519PrivateKey | None,",
    "    self, private_key: ec.EllipticCurvePrivateKey, f_priv: _FragList",
    "    token = Keyword.Reserved",
    "TOKEN_QUERY = 0x8",
    '_RELATIONSHIP_TOKEN: Final[Literal["relationship"]] = "relationship"',
    '    _RELATIONSHIP_TOKEN: Final[Literal["relationship"]]',
    "#> username='scolvin' password=SecretStr('**********')",
    "    password=SecretStr('***'),",
    "    old_env = self.update_environment(PWD='/tmp')",
    "PWD=/home/runner/work/app/app",
    "    RegOpenKeyEx = winreg.OpenKeyEx",
    'UNRESERVED_PAT = r"[A-Za-z0-9\\-\\._~]"',
    '        toolskey = "VS%0.f0COMNTOOLS" % version',
    '    SignatureAlgorithmOID.RSA_WITH_SHA224: "sha224WithRSAEncryption",',
    "    path = Path(__file__).parent",
    "PATH=/usr/local/bin:/usr/bin:/bin",
]


@pytest.mark.parametrize("line", CODE)
def test_code_is_not_a_secret(line: str) -> None:
    assert redact(line + "\n").text == line + "\n"


def test_a_long_hex_constant_may_be_a_key() -> None:
    key = "0x" + "4c0883a69102937d6231471b5dbb6204fe512961708279f7a0b3c0a1b2c3d4e5"
    assert key not in redact(f"PRIVATE_KEY = {key}\n").text


_SOURCES = ("yaml", "git", "unidiff", "hypothesis", "jsonschema", "_pytest")


def test_real_package_sources_change_at_most_two_lines_in_ten_thousand() -> None:
    """Installed sources of the test dependencies (outside their tests) hold no secrets: what
    redaction changes there is false positives."""
    import importlib

    total = changed = 0
    for name in _SOURCES:
        folder = Path(importlib.import_module(name).__file__ or "").parent
        for path in sorted(folder.rglob("*.py")):
            if "test" in path.name or {"tests", "testing"} & set(path.parts):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            out = redact(text).text
            before, after = text.splitlines(), out.splitlines()
            assert len(before) == len(after)
            total += len(before)
            changed += sum(a != b for a, b in zip(before, after))
    assert total > 50_000
    assert changed <= 0.0002 * total, changed


def test_generated_values_are_fresh_each_round() -> None:
    rng = random.Random(1)
    values = {secret_names.value(rng, punctuated) for punctuated in (False, True) for _ in range(50)}
    assert len(values) == 100


def test_every_name_classify_accepts_holds_one_of_the_stems() -> None:
    """The redaction's readers skip a line holding no stem (a URL's line, a vendor's anchor alone):
    no secret name may be without one, in any spelling."""
    from ctxguard.secrets import names

    words = [*names._PASSWORD, *names._MAYBE, *(tail for tail, _ in names._COMPOUND_TAILS)]
    words += ["token", "pat", "secret", "key", "keys", "spotifykey", "clientkey"]
    assert [w for w in words if not any(stem in w for stem in names.STEMS)] == []
    rng = random.Random(5)
    fillers = ["db", "api", "my", "x", "admin", "test", "url", "value", "config", "client", "public"]
    tried = 0
    for word in words:
        for position in secret_names.POSITIONS:
            for style in secret_names.STYLES:
                parts = [rng.choice(fillers)] if position in ("qualifier", "both") else []
                parts += [word] + ([rng.choice(fillers)] if position in ("suffix", "both") else [])
                name = secret_names._style(parts, style)
                if classify(name) is not None:
                    tried += 1
                    assert any(stem in name.lower() for stem in names.STEMS), name
    assert tried > 500


def test_a_line_whose_only_anchor_is_a_url_is_read_when_it_names_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxguard.secrets import assign

    value = "7f3Kq9Zp2Lx8Vb4NwR6t"
    line = f"PIN_CODE={value} callback=https://example.com/done\n"  # (`pin` is no anchor: `://` is)
    assert value not in redact(line).text
    read: list[str] = []
    spans = assign.spans
    monkeypatch.setattr(assign, "spans", lambda body: read.append(body) or spans(body))
    plain = "See https://example.com/docs/start for the guide, and https://example.com/faq.\n"
    assert redact(plain * 3).text == plain * 3
    assert read == []  # (no secret's name on them: the readers never ran)
