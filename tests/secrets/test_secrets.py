"""Secrets under real names, in real syntaxes and vendor formats go; everyday code stays."""

from __future__ import annotations

import json
import random
import re
import sys

import pytest

from ctxguard.secrets.names import SecretName, classify
from ctxguard.secrets.redact import redact
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from secret_vectors import VECTORS, measure  # noqa: E402

# Variables of well-known images and services (Docker Hub docs): every one holds a secret.
IMAGE_NAMES = [
    "ADMIN_PASSWORD",
    "MINIO_SECRET_KEY",
    "MINIO_ROOT_PASSWORD",
    "SHARED_SECRET",
    "GF_SECURITY_ADMIN_PASSWORD",
    "KEYCLOAK_ADMIN_PASSWORD",
    "HASHICORP_VAULT_TOKEN",
    "CALENDAR_API_KEY",
    "MAXMIND_LICENSE_KEY",
    "RABBITMQ_DEFAULT_PASS",
    "SMTP_PASS",
    "POSTGRES_PASSWORD",
    "MYSQL_ROOT_PASSWORD",
    "MONGO_INITDB_ROOT_PASSWORD",
    "REDIS_PASSWORD",
    "ELASTIC_PASSWORD",
    "DJANGO_SECRET_KEY",
    "SECRET_KEY_BASE",
    "AWS_SECRET_ACCESS_KEY",
    "GITHUB_TOKEN",
    "NPM_TOKEN",
    "SENTRY_AUTH_TOKEN",
    "JWT_SECRET",
    "SESSION_SECRET",
    "DB_PASS",
    "WORDPRESS_DB_PASSWORD",
    "NEXTAUTH_SECRET",
    "STRIPE_SECRET_KEY",
    "SLACK_BOT_TOKEN",
    "OPENAI_API_KEY",
    "MAXMIND_ACCOUNT_LICENSE_KEY",
    "MINIO_ACCESS_KEY",
    "HARBOR_ADMIN_PASSWORD",
    "GITLAB_ROOT_PASSWORD",
]
VALUES = [
    "Xk9#mQ2$vL7pw",
    "hunter2hunter2",
    "pass#word2024",
    "a;b&c=d-tail9",
    "dop_v1_" + "a1b2c3d4" * 8,
    "shpat_" + "0a1b2c3d" * 4,
    "rubygems_" + "ab12" * 12,
    "hvs." + "CAESIJ1a2b3c4d5e6f7g8h9i0jKlMnOpQrSt" * 2,
]


def _syntaxes(name: str, value: str) -> list[str]:
    lower = name.lower()
    camel = lower.split("_")[0] + "".join(p.title() for p in lower.split("_")[1:])
    return [
        f"{name}={value}\n",
        f"export {name}={value}\n",
        f"  {lower}: {value}\n",
        f"      - {name}={value}\n",
        f"  {name}: {value}\n",
        f'{name}="{value}"\n',
        json.dumps({lower: value}) + "\n",
        json.dumps([{"name": name, "value": value}]) + "\n",
        f"        - name: {name}\n          value: {value}\n",
        f'os.environ["{name}"] = "{value}"\n',
        f'var {camel} string = "{value}"\n',
        f'System.setProperty("{name}", "{value}");\n',
        f'{name} ?= "{value}"\n',
        f'{name} ::= "{value}"\n',
        f'${camel} .= "{value}";\n',
        f'private static final String {name} = "{value}";\n',
        f'<entry name="{name}" value="{value}"/>\n',
    ]


@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_secret_names_of_real_images_redact_every_value_shape_in_every_syntax(name: str) -> None:
    missed = [
        text
        for value in VALUES
        for text in _syntaxes(name, value)
        if value in redact(text).text or value.split("#")[-1] in redact(text).text
    ]
    assert missed == []


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("ADMIN_PASSWORD", "password"),
        ("RABBITMQ_DEFAULT_PASS", "password"),
        ("dbPassword", "password"),
        ("MINIO_SECRET_KEY", "secret"),
        ("CALENDAR_API_KEY", "api_key"),
        ("x-api-key", "api_key"),
        ("HASHICORP_VAULT_TOKEN", "token"),
        ("_authToken", "token"),
        ("password_super_secure", "password"),
    ],
)
def test_names_are_read_as_whole_parts(name: str, kind: str) -> None:
    found = classify(name)
    assert found is not None and found.kind == kind and found.sure


@pytest.mark.parametrize(
    "name",
    [
        "PASSWORD_MIN_LENGTH",
        "TOKEN_HEADER",
        "token_url",
        "public_key",
        "max_tokens",
        "password_hash",
        "api_key_id",
        "jsonwebtoken",
        "tokenizer",
        "token_type",
    ],
)
def test_names_of_other_things_hold_no_secret(name: str) -> None:
    assert classify(name) is None


@pytest.mark.parametrize(
    "name",
    ["csrf-token", "forgot_password", "cancelToken", "REDIS_CACHE_PASSWORD", "DATA_SYNC_TOKEN", "SPOTIFYKEY"],
)
def test_a_qualifier_before_the_secret_word_asks_for_a_random_value(name: str) -> None:
    """A name ending in a secret word holds a secret when its value looks random, whatever word
    comes before (`CACHE_`, `SYNC_`, `HEADER_`): a word of the not-before list only makes the
    name's plain words (`cancelToken = "cancel"`) something else."""
    found = classify(name)
    assert found is not None and not found.sure
    value = "Xq8vR2mK9pL4nZ7wT1yB6cF3hJ5dG0sA"
    assert value not in redact(f"{name}={value}\n").text
    assert redact(f"{name} = 'cancelled'\n").text == f"{name} = 'cancelled'\n"


@pytest.mark.parametrize(
    ("name", "kind"),
    [("CURL_AUTH_HEADER_TOKEN", "token"), ("SLACK_LEGACY_TOKEN", "token"), ("AIRBRAKEUSERKEY", "secret")],
)
def test_a_secret_word_after_header_or_legacy_or_a_key_owner_in_one_word_is_sure(name: str, kind: str) -> None:
    """The token that goes in a header, a legacy token and a user's key hold secrets whatever their
    value looks like (`TOKEN_HEADER` and `hotkey` do not)."""
    assert classify(name) == SecretName(kind, True)
    assert "hunter2isnotrandom" not in redact(f"{name}=hunter2isnotrandom\n").text
    assert classify("TOKEN_HEADER") is None and classify("hotkey") is None and classify("MONKEY") is None


def test_an_identifier_shaped_value_is_a_reference_only_in_code() -> None:
    assert redact("  token: accessToken\n").text == "  token: accessToken\n"  # a JS/TS object's member
    assert redact("  API_TOKEN: accessToken\n").text == "  API_TOKEN: [REDACTED:token]\n"  # env/YAML: a value
    assert redact("API_TOKEN=someValue\n").text == "API_TOKEN=[REDACTED:token]\n"
    assert redact("    API_TOKEN: settings.API_TOKEN,\n").text == "    API_TOKEN: settings.API_TOKEN,\n"  # code


def test_an_unquoted_value_runs_to_the_end_of_its_token() -> None:
    found = redact("DB_PASSWORD=pass#word2024\nQUERY=x?user=bob&password=s3cr3t;v&next=1\n").text
    assert found == "DB_PASSWORD=[REDACTED:password]\nQUERY=x?user=bob&password=[REDACTED:password]&next=1\n"
    conn = redact("Server=db;User Id=sa;Password=My9Pass2024;Encrypt=true\n").text
    assert conn == "Server=db;User Id=sa;Password=[REDACTED:password];Encrypt=true\n"  # `;` ends it there


# Vendor formats the vendors document, alone on a line with no name to mark them.
def _vendor_values(rng: random.Random) -> dict[str, str]:
    def pick(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    letters = alnum[:52]
    return {
        "huggingface_token": "api_org_" + "Token" + pick(letters, 29),
        "openai_key": "sk-svcacct-" + pick(alnum + "_-", 48) + "T3BlbkFJ" + pick(alnum + "_-", 48),
        "github_token": "ghs_" + pick(alnum, 20) + "_" + pick(alnum, 40),
        "slack_webhook": "hooks.slack.com/services/T"
        + pick(alnum.upper(), 8)
        + "/B"
        + pick(alnum.upper(), 8)
        + "/"
        + pick(alnum, 24),
        "jwt": "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxMjM0NTY3ODkwIiwicm9sZSI6ImFkbWluIn0.",
        "stripe_key": "sk_prod_" + pick(alnum, 24),
        "digitalocean_token": "dop_v1_" + pick("0123456789abcdef", 64),
        "shopify_token": "shpat_" + pick("0123456789abcdef", 32),
        "rubygems_key": "rubygems_" + pick("0123456789abcdef", 48),
        "vault_token": "hvs." + pick(alnum + "_-", 90),
    }


@pytest.mark.parametrize("seed", range(5))
def test_documented_vendor_formats_go_without_a_name(seed: int) -> None:
    for kind, value in _vendor_values(random.Random(seed)).items():
        for text in (f"curl -d @- http://{value}\n", f"using {value} for the upload\n", f"- {value}\n"):
            found = redact(text)
            assert value.rstrip(".") not in found.text, (kind, text)
            assert found.text.count("\n") == text.count("\n")


@pytest.mark.parametrize(
    "line",
    [
        '    "jsonwebtoken": "^9.0.2",',
        '    "csrf-token": "~3.1.0",',
        '    "pbkdf2-password": "1.2.1",',
        "  password: string;",
        "  token?: string | null;",
        "    token: accessToken,",
        "  token: accessToken",
        '        "token": "string",',
        '  "forgot_password": "Forgot your password?",',
        'TOKEN_HEADER = "X-Auth-Token"',
        "  cancelToken: defaultToConfig2,",
        "cancelToken: source.token",
        '  "password": "Password",',
        "PASSWORD_MIN_LENGTH = 12",
        "password = os.environ['DB_PASSWORD']",
        "token = get_token(request)",
        "self.tokenizer = tokenizer",
        "api_key = settings.API_KEY",
        "  secretName: my-app-secrets",
        "max_tokens: 4096",
        "  id-token: write",
        'const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";',
        "DB_PASSWORD=${DB_PASSWORD}",
        "password: <your-password>",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        # Code a reviewer reads is never rewritten: a call, a keyword, the punctuation after it.
        'authorization = request.headers.get("Authorization")',
        "    def connect(self, host, password=None):",
        "    password=None):",
        "    token=True)",
        "slack placeholder xoxp-1-RANDOMSTRINGHERE",
    ],
)
def test_everyday_lines_are_code_not_secrets(line: str) -> None:
    assert redact(line).text == line


def test_the_public_vectors_meet_their_targets() -> None:
    """gitleaks' and detect-secrets' own test strings (tests/samples/secrets/vectors.json)."""
    scores = measure(json.loads(VECTORS.read_text(encoding="utf-8")), seed=1)
    rate = {name: hits / tries for name, (hits, tries, _) in scores.items()}
    assert rate["named"] >= 0.95 and rate["vendor, no name"] >= 0.90
    assert rate["own lines"] >= 0.65 and rate["false positives (kept)"] >= 0.75


def test_redaction_is_one_scan_even_on_a_long_line() -> None:
    """A hint word on every position of a 400 kB line costs one pass, not one per word."""
    text = ("key " * 100_000) + "\n"
    assert redact(text).text == text


def test_the_quoted_assignment_reader_is_skipped_only_where_it_cannot_match() -> None:
    """A line without a separator meeting a quote skips the quoted-assignment reader: that is
    safe only if every match of the reader has one, for every separator and quote prefix."""
    from ctxguard.secrets import assign

    separators = ["=>", ":::=", "::=", ":=", "??=", "?=", ".=", "+=", "!=", "!==", "==", "===", "=", ":"]
    values = ['"s3cr3tV4lu3x9"', "'s3cr3tV4lu3x9'", "`s3cr3tV4lu3x9`", 'r"s3cr3tV4lu3x9"', 'b"x9z"', '@"s3cr3tV4l"']
    names = ["password", '"api_key"', "var dbPassword string", "val token: String", 'env["X_TOKEN"]']
    lines = [f"{n} {s} {v}" for n in names for s in separators for v in values]
    lines += [f"{n}{s}{v}" for n in names for s in separators for v in values]
    matched = [line for line in lines if assign._ASSIGN_QUOTED.search(line)]
    assert len(matched) > len(lines) // 2  # (the lines exercise the reader)
    assert all(assign._SEP_QUOTE.search(line) for line in matched)
    assert assign._SEP_QUOTE.search("a key passage in prose, `quoted` words but no assignment") is None


def test_the_comparison_and_escaped_readers_are_skipped_only_where_they_cannot_match() -> None:
    """A line without a quote meeting `==`/`!=` skips the comparison reader, one without a
    separator meeting an escaped quote the escaped-string reader (a single-line JSON report
    has `==` and backslashes in its messages, rarely these): safe only if every match of each
    reader has what its gate looks for."""
    from ctxguard.secrets import assign

    literals = ['"s3cr3tV4lu3x9"', "'s3cr3tV4lu3x9'", "`s3cr3tV4lu3x9`", 'r"s3cr3tV4lu3x9"', '@"s3cr3tV4l"']
    compared = [f"if ({v}{sp}{op}{sp2}password)" for v in literals for op in ("==", "===", "!=", "!==")
                for sp in ("", " ", "\t") for sp2 in ("", " ")]  # fmt: skip
    matched = [line for line in compared if assign._COMPARED.search(line)]
    assert len(matched) > len(compared) // 2 and all(assign._QUOTE_COMPARED.search(line) for line in matched)
    escaped = [f"{n}{q}{sp}{sep}{sp2}\\{q2}s3cr3tV4lu3x9\\{q2}" for n in ("password", "\\\"api_key")
               for q in ("", "\\\"", "'") for sep in ("=", ":") for sp in ("", " ") for sp2 in ("", " ", "\t")
               for q2 in ('"', "'")]  # fmt: skip
    matched = [line for line in escaped if assign._ESCAPED.search(line)]
    assert len(matched) > len(escaped) // 2 and all(assign._SEP_ESCAPED.search(line) for line in matched)
    report = '{"longrepr": "assert 1 == 2\\nE  AssertionError", "token_count": 3}'
    assert assign._QUOTE_COMPARED.search(report) is None and assign._SEP_ESCAPED.search(report) is None


def _quoted_by_hand(text: str, start: int) -> str | None:
    """The value of a literal opening at text[start]: up to its first quote of the same kind
    that no backslash escapes (None if it never closes)."""
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            if i + 1 >= len(text) or text[i + 1] == "\n":
                return None  # (`.` takes no line break)
            i += 2
        elif text[i] == quote:
            return text[start + 1 : i]
        else:
            i += 1
    return None


def test_a_quoted_value_ends_at_its_own_quote_not_escaped() -> None:
    """The readers' literal (runs taken whole, for speed) reads what a literal is, checked by
    hand on random texts of quotes, backslashes and words; and a value that never closes costs
    one pass, not one per way to split its runs."""
    from ctxguard.secrets import assign

    literal = re.compile(assign._QUOTED)
    rng = random.Random(3)
    pieces = ['"', "'", "`", "\\", "ab", " ", "\n", "é"]
    checked = 0
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        for start, char in enumerate(text):
            if char in "\"'`":
                found = literal.match(text, start)
                expected = _quoted_by_hand(text, start)
                assert (found.group("value") if found else None) == expected, (text, start)
                checked += 1
    assert checked > 40_000
    assert redact('password = "' + "a b" * 30_000 + "\n").text.startswith("password =")  # (returns)


# --- properties: any name ending in a secret word; JSON that still parses; code that stays ----
from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_QUALIFIERS = [
    "cache", "sync", "header", "legacy", "index", "csrf", "data", "redis", "db", "x", "slack", "client",
    "service", "mock", "sample", "next", "session", "app", "main", "prod", "backup", "old", "new", "my",
]  # fmt: skip
_SECRET_WORDS = ["password", "passwd", "token", "secret", "api_key", "secret_key", "access_token", "auth_token"]
_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


@st.composite
def _random_values(draw: st.DrawFn) -> str:
    """A machine-made value: 24-40 characters drawn uniformly, both cases and digits."""
    pick = random.Random(draw(st.integers(0, 2**32)))
    return "aZ7" + "".join(pick.choice(_ALPHABET) for _ in range(draw(st.integers(21, 37))))


@st.composite
def _secret_names(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(_QUALIFIERS), min_size=0, max_size=3))
    name = "_".join([*words, draw(st.sampled_from(_SECRET_WORDS))])
    return name.upper() if draw(st.booleans()) else name


@given(name=_secret_names(), value=_random_values())
def test_a_random_value_under_any_name_ending_in_a_secret_word_is_redacted_in_every_syntax(
    name: str, value: str
) -> None:
    for text in _syntaxes(name, value):
        assert value not in redact(text).text, text


_JSON_NAMES = st.one_of(_secret_names(), st.sampled_from(["user", "region", "id", "count", "note"]))
_JSON_VALUES = st.one_of(
    _random_values(),
    _random_values().map(lambda v: f'"{v}"'),  # quotes inside the value: escaped in the JSON
    _random_values().map(lambda v: v + '"'),
    _random_values().map(lambda v: v + "\\"),
    st.text(max_size=12),
    st.integers(),
    st.booleans(),
    st.none(),
)


def _env_entries(name: str, value: object) -> object:
    return {"name": name, "value": value}


_DOCUMENTS = st.recursive(
    _JSON_VALUES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_JSON_NAMES, inner, max_size=4),
        st.builds(_env_entries, _secret_names(), _JSON_VALUES),
    ),
    max_leaves=12,
)


def _shape(value: object) -> object:
    """A JSON value's structure: its keys, lengths and types, strings not compared."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return "str" if isinstance(value, str) else value


@given(document=_DOCUMENTS, indent=st.sampled_from([None, 2]))
def test_every_redacted_json_parses_and_keeps_its_structure(document: object, indent: int | None) -> None:
    text = json.dumps(document, indent=indent)
    redacted = redact(text).text
    assert _shape(json.loads(redacted)) == _shape(document)


_CODE_VALUES = [
    "None", "True", "False", "null", "nil", "undefined",
    "get_password()", "self.token", "request.headers.get(\"Authorization\")", "os.environ[\"TOKEN\"]",
    "config.secret", "getpass()", "new_password", "await fetch_token(user)", "this.apiKey",
]  # fmt: skip
_CODE_FORMS = [
    "{name} = {value}\n",
    "    {name}={value},\n",
    "    {name}={value}):\n",
    "def f(user, {name}={value}):\n",
    "  {name}: {value},\n",
    "{name} := {value}\n",
]


@given(
    name=st.sampled_from(["password", "token", "secret", "api_key", "authorization", "auth_token", "dbPassword"]),
    value=st.sampled_from(_CODE_VALUES),
    form=st.sampled_from(_CODE_FORMS),
)
def test_identifiers_calls_and_keywords_in_assignment_position_are_kept(name: str, value: str, form: str) -> None:
    line = form.format(name=name, value=value)
    assert redact(line).text == line


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        (
            "OPENAI=sk-ctxguard-review-bot-T3BlbkFJr7sT9uV1wX3yZ5aB7cD9eF",
            "sk-ctxguard-review-bot-T3BlbkFJr7sT9uV1wX3yZ5aB7cD9eF",
        ),
        (
            "used sk-my-team-Ab3dE5fG7hI9jK1lT3BlbkFJr7sT9uV1wX3yZ5 today",
            "sk-my-team-Ab3dE5fG7hI9jK1lT3BlbkFJr7sT9uV1wX3yZ5",
        ),
        ("slack xoxa-2-1234567890-abcdefghijklmnopqrstuvwx", "xoxa-2-1234567890-abcdefghijklmnopqrstuvwx"),
        ("slack xoxr-1234567890-AbCdEfGhIjKlMnOp12345", "xoxr-1234567890-AbCdEfGhIjKlMnOp12345"),
        (
            "slack xoxe-1-My0xNjg1ODY5NTIwNjQyLTEyMzQ1Njc4OTAxMi0xMjM0NTY3",
            "xoxe-1-My0xNjg1ODY5NTIwNjQyLTEyMzQ1Njc4OTAxMi0xMjM0NTY3",
        ),
        ("slack xoxo-1234567890-1234567890-abcdef1234567890", "xoxo-1234567890-1234567890-abcdef1234567890"),
    ],
)
def test_vendor_formats_with_no_name_are_redacted(line: str, secret: str) -> None:
    assert secret not in redact(line + "\n").text


_ESCAPED_PARTS = [
    "password",
    "db.token",
    "$key",
    "@x",
    "a::b",
    "_n",
    "9",
    "é",
    "\\",
    '"',
    "'",
    ":",
    "=",
    " ",
    "\t",
    "-",
    ".",
    ",",
    "{",
    "v4lu3",
    "x" * 300,
]


@given(st.lists(st.sampled_from(_ESCAPED_PARTS), max_size=40))
@example(["x" * 300, ":", "\\", '"', "v4lu3", "\\", '"'])  # a name longer than the reach read back
@example(
    ["password", "\\", '"', ":", " ", "\\", '"', "v4lu3", "\\", '"', ",", "a::b", "=", "\\", "'", "v4lu3", "\\", "'"]
)
def test_escaped_values_are_found_from_the_separators_as_a_search_of_the_whole_line_finds_them(
    parts: list[str],
) -> None:
    # The reader of `\"password\": \"v\"` searches from where the name before each separator
    # could start, not at every word: the same matches, in order, through long names (past the
    # reach it reads back), escaped quotes, blanks and `::` in names.
    from ctxguard.secrets.assign import _ESCAPED, _escaped

    line = "".join(parts)
    assert [m.span() for m in _escaped(line)] == [m.span() for m in _ESCAPED.finditer(line)]
