"""Secret redaction: realistic fake secrets go, ordinary code, logs and lockfiles stay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxguard.api import compress_text
from ctxguard.main import main
from ctxguard.secrets.redact import redact
from tests.conftest import SAMPLES
from tests.fuzz import endings
from tests.gitrepo import Repo, configured

# Built from pieces so that this file itself does not look like it leaks anything.
FAKE = {
    "aws_access_key": "AKIA" + "IOSFODNN7EXAMPLB",
    "google_api_key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "github_token": "ghp_" + "A1b2C3d4" * 4 + "E5f6",
    "gitlab_token": "glpat-" + "x1Y2z3W4v5U6t7S8r9Q0",
    "slack_token": "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp",
    "anthropic_key": "sk-ant-" + "api03-" + "Zx9" * 30,
    "openai_key": "sk-proj-" + "Qw8" * 16,
    "stripe_key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}
PEM = (
    "-----BEGIN "
    + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA "
    + "PRIVATE KEY-----"
)


@pytest.mark.parametrize("kind", sorted(FAKE))
def test_vendor_secrets_are_replaced_and_counted(kind: str) -> None:
    text = f"config loaded\nkey in use: {FAKE[kind]} (rotated monthly)\n"
    found = redact(text)
    assert FAKE[kind] not in found.text
    assert f"[REDACTED:{kind}]" in found.text and found.counts == {kind: 1}
    assert found.text.startswith("config loaded\nkey in use: ") and found.text.endswith(" (rotated monthly)\n")


def test_private_keys_assignments_and_url_passwords() -> None:
    text = (
        f"{PEM}\npassword = \"hunter2-prod\"\n+DB_PASSWORD=s3cr3t-value\napi_key: 'k-12345678'\n"
        "DATABASE_URL=postgres://admin:pa55word@db:5432/app\n"
    )
    found = redact(text)
    for secret in ("MIIEpAIBAAKCAQEA", "hunter2-prod", "s3cr3t-value", "k-12345678", "pa55word"):
        assert secret not in found.text
    assert found.counts == {"api_key": 1, "password": 2, "private_key": 1, "url_password": 1}
    assert "postgres://admin:[REDACTED:url_password]@db:5432/app" in found.text


def test_redacted_json_is_still_valid_json() -> None:
    value = {
        "user": "bob",
        "password": "hunter2-prod",
        "token": FAKE["github_token"],
        "tls": {"key": PEM},
        "nested": [{"api_key": "k-" + "9a8b7c" * 4}],
    }
    found = redact(json.dumps(value, indent=2))
    parsed = json.loads(found.text)
    assert parsed["password"] == "[REDACTED:password]" and parsed["user"] == "bob"
    assert parsed["tls"]["key"] == "[REDACTED:private_key]"
    assert "[REDACTED:" in parsed["nested"][0]["api_key"]


@pytest.mark.parametrize(
    "line",
    [
        "token = get_token(request)",
        "password = os.environ['DB_PASSWORD']",
        "password: ${DB_PASSWORD}",
        "cancelToken: source.token",
        "  id-token: write",
        "max_tokens: 4096",
        "def check_password(password, hashed):",
        '"integrity": "sha512-9gJXh3Zy0yQ4b9qJxO2ZpP8Xw1lZvT9n4cB+q3mWJQfYh8Z5o8jv0D7Y0l1m2n3o4p5q6r7s8t9u0v1w2x3y4z5=="',  # noqa: E501
        "request_id=123e4567-e89b-12d3-a456-426614174000 status=200",
        "commit 2f25074a9d1c3b4e5f60718293a4b5c6d7e8f901",
        "data = base64.b64decode('SGVsbG8sIFdvcmxkIQ==')",
        "Task-ask-skipping done",
        "go.sum: golang.org/x/text v0.3.7 h1:olpwvP2KacW1ZWvsR7uQhoyTYvKAupfQrRGBFM352Gk=",
    ],
)
def test_ordinary_code_logs_and_lockfiles_pass_untouched(line: str) -> None:
    assert redact(line).text == line and redact(line).counts == {}


def test_records_report_counts_never_values_and_redact_can_be_off() -> None:
    text = f"deploying with {FAKE['stripe_key']}\n"
    record = compress_text(text, 500, name="deploy.log")
    assert record["redacted"] == {"stripe_key": 1}
    assert FAKE["stripe_key"] not in json.dumps(record)
    kept = compress_text(text, 500, name="deploy.log", redact=False)
    assert FAKE["stripe_key"] in kept["content"] and "redacted" not in kept


def test_bundle_redacts_before_offload_and_digest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(
        ".ctxguard.yaml", "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    diff: staged\n    budget: 64\n"
    )
    repo.write("app.py", "x = 1\n")
    repo.commit("initial")
    repo.write(
        "settings.py", "".join(f"OPTION_{i} = {i}\n" for i in range(200)) + f"GITHUB_TOKEN = '{FAKE['github_token']}'\n"
    )
    repo.add("settings.py")
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    folder = repo.path / ".git/ctxguard"
    for path in folder.rglob("*"):
        if path.is_file():
            assert FAKE["github_token"] not in path.read_text()
    bundle = json.loads((folder / "bundle.json").read_text())
    assert bundle["artifacts"][0]["redacted"] == {"github_token": 1}
    assert bundle["artifacts"][0]["truncated"] and "offload" in bundle["artifacts"][0]
    repo.write(
        ".ctxguard.yaml",
        "version: 1\nredact: false\nfail_on: never\nartifacts:\n  - name: diff\n    diff: staged\n    budget: 10000\n",
    )
    capsys.readouterr()
    assert main(["bundle", "--repo", str(repo.path), "--stdout"]) == 0
    assert FAKE["github_token"] in capsys.readouterr().out  # redact: false keeps it


# --- structure: a replacement never joins, splits or re-ends a line -------------------------

SECRET_SAMPLES = SAMPLES / "secrets"
EXPECTED = json.loads((SECRET_SAMPLES / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_kind_of_fake_secret_is_redacted_and_lines_stay(name: str) -> None:
    text = (SECRET_SAMPLES / name).read_text(encoding="utf-8")
    found = redact(text)
    assert EXPECTED[name]["secret"] not in found.text
    assert found.counts and "[REDACTED:" in found.text
    assert endings(found.text) == endings(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A=1\nSECRET_KEY=abcdef123456\nB=2\n", "A=1\nSECRET_KEY=[REDACTED:secret]\nB=2\n"),
        ("A=1\r\nSECRET_KEY=abcdef123456\r\nB=2\r\n", "A=1\r\nSECRET_KEY=[REDACTED:secret]\r\nB=2\r\n"),
        ("db:\n  password: hunter2hunter\n  host: x\n", "db:\n  password: [REDACTED:password]\n  host: x\n"),
        ("+API_TOKEN=abcdefgh1234\n+PORT=8080\n", "+API_TOKEN=[REDACTED:token]\n+PORT=8080\n"),
        ('{"password": "hunter2-prod",\n "user": "bob"}\n', '{"password": "[REDACTED:password]",\n "user": "bob"}\n'),
        ("export DB_PASSWORD='s3cr3t value'\n", "export DB_PASSWORD='[REDACTED:password]'\n"),
        ("ts=1 user=bob password=hunter2 ok\n", "ts=1 user=bob password=[REDACTED:password] ok\n"),
        ("run(secrets=redact, missed=missed)\n", "run(secrets=redact, missed=missed)\n"),
        ("self.tokenizer = tokenizer\n", "self.tokenizer = tokenizer\n"),
    ],
)
def test_assignments_keep_their_line_and_its_ending(text: str, expected: str) -> None:
    assert redact(text).text == expected


def test_a_private_key_in_a_diff_keeps_the_hunk_parseable() -> None:
    from unidiff import PatchSet

    body = "\n".join(f"+{'AbCd0123' * 8}" for _ in range(5))
    diff = (
        "diff --git a/deploy/key.pem b/deploy/key.pem\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/deploy/key.pem\n@@ -0,0 +1,7 @@\n+-----BEGIN "
        "RSA PRIVATE KEY-----\n"
        f"{body}\n+-----END RSA "
        "PRIVATE KEY-----\n"
    )
    found = redact(diff)
    assert "AbCd0123" not in found.text and found.counts == {"private_key": 1}
    patch = PatchSet(found.text)
    assert [f.path for f in patch] == ["deploy/key.pem"] and patch[0].added == 7


def test_a_staged_env_file_stays_a_diff_with_its_file_list(tmp_path: Path) -> None:
    repo = configured(tmp_path / "repo", "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    budget: 2000\n")
    repo.write(".env", "API_TOKEN=abcdefgh12345678\r\nPORT=8080\r\nDEBUG=false\r\n")
    repo.add(".env")
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 0
    bundle = json.loads(out.read_text())
    record = bundle["artifacts"][0]
    assert "abcdefgh12345678" not in out.read_text()
    assert "+API_TOKEN=[REDACTED:token]\r\n+PORT=8080" in record["content"]
    assert [row[0] for row in record["files"]["rows"]] == [".env"]
    assert "1 file changed (+3 -0)." in bundle["digest"]
    assert "redacted 1 secret value (1 token)" in record["notes"]


def test_each_record_says_how_many_values_of_which_kinds_were_redacted() -> None:
    text = f"a {FAKE['stripe_key']} b {FAKE['github_token']}\npassword = 'hunter2-prod'\n"
    record = compress_text(text, 500, name="deploy.log")
    assert record["redacted"] == {"github_token": 1, "password": 1, "stripe_key": 1}
    assert "redacted 3 secret values (1 github_token, 1 password, 1 stripe_key)" in record["notes"]


@pytest.mark.parametrize(
    "marker",
    ["# ctxguard: allow", "# gitleaks:allow", "# pragma: allowlist secret", "// trufflehog:ignore", "#ctxguard:allow"],
)
def test_an_allow_marker_keeps_that_lines_values_and_only_that_lines(marker: str) -> None:
    kept_line = f"TEST_API_TOKEN={FAKE['github_token']}  {marker}\n"
    other = f"DEPLOY_TOKEN={FAKE['stripe_key']}\n"
    found = redact(kept_line + other)
    assert found.text.startswith(kept_line)
    assert FAKE["stripe_key"] not in found.text
    assert found.allowed == 1 and sum(found.counts.values()) == 1


def test_an_allow_marker_on_a_private_keys_begin_line_keeps_the_block() -> None:
    begin, rest = PEM.split("\n", 1)
    text = f"{begin}  # gitleaks:allow\n{rest}\n"
    found = redact(text)
    assert found.text == text and found.allowed == 1 and found.counts == {}


def test_what_an_allow_marker_kept_is_said_in_the_records_notes() -> None:
    text = f"fixture_token = '{FAKE['github_token']}'  # ctxguard: allow\npassword = 'Xk9!mQ2@pL7^wR4z'\n"
    record = compress_text(text, budget=500, name="fixtures.py")
    assert FAKE["github_token"] in record["content"] and "Xk9!mQ2@pL7^wR4z" not in record["content"]
    said = " ".join(record["notes"])
    assert "redacted 1 secret value (1 password)" in said
    assert "kept 1 secret-looking value on lines marked `ctxguard: allow`" in said


def test_a_long_line_of_secrets_has_its_bounds_found_once_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many secrets on one long line (a minified file, a log line of pairs), one of two marked
    lines among many: each line's bounds are found a bounded number of times, not once per
    secret (which read the line again for each: minutes at a megabyte), and the marker still
    keeps its line's values only."""
    from ctxguard.secrets import redact as module

    calls = []
    real = module._line

    def counted(text: str, pos: int) -> tuple[int, int]:
        calls.append(pos)
        return real(text, pos)

    monkeypatch.setattr(module, "_line", counted)
    pairs = " ".join(f"session_token={FAKE['github_token']} api_key=Xk9mQ2pL7wR4z{k:04d}x" for k in range(300))
    marked = "password = 'Xk9!mQ2@pL7^wR4z'  # ctxguard: allow\n"
    found = redact(pairs + "\n" + marked + pairs + "\n")
    assert sum(found.counts.values()) == 1200 and found.allowed == 1
    assert FAKE["github_token"] not in found.text and "Xk9!mQ2@pL7^wR4z" in found.text
    assert len(calls) < 20  # (three lines; 1,201 spans)


# --- the anchor scan: the automaton and the regular expression find the same ----------------


def _scanned_texts() -> list[str]:
    """The secret vectors, every sample artifact, the fake secrets in ordinary lines, and text
    outside ASCII (the automaton's places must be characters, not bytes)."""
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLES.rglob("*")) if p.is_file()]
    texts += [f"const token = '{value}'; // PAT pat Pat path compat\n" for value in FAKE.values()]
    texts.append("naïve café — ключ token=ÄÖÜ xoxb-1 ghp_ ∑ AKIA Secret SECRET secret\n" * 3)
    texts.append('{"token\ud800": "x\udfffsecret=1", "ключ": "\ud83d api_key: ∑ ghp_"}\n')  # (lone surrogates)
    # Programs whose command line holds a password: two on a line, one inside the other's end,
    # after a character outside ASCII and a lone surrogate.
    texts.append(
        "ключ\ud800 mysqlogin; mysql -u root -phunter2xq app\nsshpass -p 'hunter2xq' ssh h; mysql -phunter2xq\n" * 2
    )
    return texts


def test_the_anchor_automaton_finds_what_the_regular_expression_finds() -> None:
    from ctxguard.secrets import formats

    assert formats._scanner() is not formats.regex_anchors  # (ahocorasick-rs is a dependency: installed)
    texts = _scanned_texts()
    assert len(texts) > 40
    for text in texts:
        assert list(formats.find_anchors(text)) == list(formats.regex_anchors(text))
    assert sum(len(list(formats.find_anchors(text))) for text in texts) > 1000  # (they found things)


def test_without_the_automaton_the_scan_and_its_redactions_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from ctxguard.literals import finder, regex_finder
    from ctxguard.secrets import formats
    from ctxguard.secrets.formats import PROGRAMS

    texts = _scanned_texts()
    with_automaton = [redact(text) for text in texts]
    real_import = builtins.__import__

    def no_wheel(name: str, *args: object, **kwargs: object) -> object:
        if name == "ahocorasick_rs":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_wheel)
    formats._scanner.cache_clear()
    finder.cache_clear()
    try:
        assert formats._scanner() is formats.regex_anchors and finder(PROGRAMS) is regex_finder(PROGRAMS)
        assert [redact(text) for text in texts] == with_automaton
    finally:
        monkeypatch.undo()
        formats._scanner.cache_clear()
        finder.cache_clear()
    assert formats._scanner() is not formats.regex_anchors and finder(PROGRAMS) is not regex_finder(PROGRAMS)
    assert sum(result.counts.get("password", 0) for result in with_automaton) >= 4  # (the programs' found)
