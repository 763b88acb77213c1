"""Random fake secrets in their vendors' published formats, and the places they turn up.

Used by bench/redaction.py (fresh values every run) and to write tests/samples/secrets/ once:

    python bench/fake_secrets.py --write tests/samples/secrets --seed 7

Each generator follows the vendor's documented shape (prefix, alphabet, length); none is a
real credential.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import urllib.parse
from collections.abc import Callable
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": str(rng.randrange(10**9)), "iat": rng.randrange(10**9)}).encode())
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


def _pem(rng: random.Random) -> str:
    body = base64.b64encode(rng.randbytes(48 * 12)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    kind = rng.choice(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"])
    return "\n".join([f"-----BEGIN {kind}-----", *lines, f"-----END {kind}-----"])


# kind -> (make the secret value, write it where it usually appears as one line or block).
# The written form is what a user would have in a file; the value is what must not survive.
Maker = Callable[[random.Random], str]
KINDS: dict[str, tuple[Maker, Callable[[str], str]]] = {
    "aws_access_key": (lambda r: "AKIA" + pick(r, UPPER, 16), lambda v: f"aws_access_key_id = {v}"),
    "aws_secret_key": (lambda r: pick(r, B64, 40), lambda v: f"aws_secret_access_key = {v}"),
    "github_classic": (lambda r: "ghp_" + pick(r, ALNUM, 36), lambda v: f"GITHUB_TOKEN={v}"),
    "github_fine_grained": (
        lambda r: "github_pat_" + pick(r, ALNUM, 22) + "_" + pick(r, ALNUM, 59),
        lambda v: f"gh auth login --with-token <<< {v}",
    ),
    "gitlab": (
        lambda r: "glpat-" + pick(r, URLSAFE, 20),
        lambda v: f"git clone https://oauth2:{v}@gitlab.com/group/app.git",
    ),
    "slack_token": (
        lambda r: f"xoxb-{pick(r, string.digits, 12)}-{pick(r, string.digits, 13)}-{pick(r, ALNUM, 24)}",
        lambda v: f'client = WebClient(token="{v}")',
    ),
    "slack_webhook": (
        lambda r: f"https://hooks.slack.com/services/T{pick(r, UPPER, 8)}/B{pick(r, UPPER, 10)}/{pick(r, ALNUM, 24)}",
        lambda v: f"SLACK_WEBHOOK_URL: {v}",
    ),
    "stripe": (lambda r: "sk_live_" + pick(r, ALNUM, 24), lambda v: f"stripe.api_key = '{v}'"),
    "google": (
        lambda r: "AIza" + pick(r, URLSAFE, 35),
        lambda v: f'<script src="https://maps.googleapis.com/maps/api/js?key={v}"></script>',
    ),
    "openai": (
        lambda r: "sk-proj-" + pick(r, URLSAFE, 74) + "T3BlbkFJ" + pick(r, URLSAFE, 74),
        lambda v: f"export OPENAI_API_KEY={v}",
    ),
    "anthropic": (
        lambda r: "sk-ant-api03-" + pick(r, URLSAFE, 93) + "AA",
        lambda v: f'client = Anthropic(api_key="{v}")',
    ),
    "npm": (lambda r: "npm_" + pick(r, ALNUM, 36), lambda v: f"//registry.npmjs.org/:_authToken={v}"),
    "pypi": (lambda r: "pypi-AgEIcHlwaS5vcmc" + pick(r, URLSAFE, 70), lambda v: f"password = {v}"),
    "sendgrid": (
        lambda r: f"SG.{pick(r, URLSAFE, 22)}.{pick(r, URLSAFE, 43)}",
        lambda v: f"sg = SendGridAPIClient('{v}')",
    ),
    "twilio": (lambda r: "SK" + pick(r, HEX, 32), lambda v: f"client = Client('{v}', api_secret, account_sid)"),
    "mailchimp": (
        lambda r: pick(r, HEX, 32) + f"-us{r.randrange(1, 21)}",
        lambda v: f"mailchimp.set_config({{'api_key': '{v}'}})",
    ),
    "azure_storage": (
        lambda r: pick(r, B64, 86) + "==",
        lambda v: f"DefaultEndpointsProtocol=https;AccountName=store1;AccountKey={v};EndpointSuffix=core.windows.net",
    ),
    "azure_sas": (
        lambda r: urllib.parse.quote(base64.b64encode(r.randbytes(32)).decode(), safe=""),
        lambda v: (
            f"https://store1.blob.core.windows.net/c/f.zip?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&spr=https&sig={v}"
        ),
    ),
    "huggingface": (
        lambda r: "hf_" + pick(r, string.ascii_letters, 34),
        lambda v: f"huggingface-cli login --token {v}",
    ),
    "jwt": (_jwt, lambda v: f"session restored from cookie {v}"),
    "bearer": (
        lambda r: pick(r, URLSAFE, 40),
        lambda v: f'curl -H "Authorization: Bearer {v}" https://api.example.com/v1/me',
    ),
    "basic": (
        lambda r: base64.b64encode(f"deploy:{pick(r, ALNUM, 14)}".encode()).decode(),
        lambda v: f"Authorization: Basic {v}",
    ),
    "url_credentials": (
        lambda r: pick(r, ALNUM, 16),
        lambda v: f"DATABASE_URL=postgres://app:{v}@db.internal:5432/app",
    ),
    "private_key": (_pem, lambda v: v),
    "password_assignment": (lambda r: pick(r, ALNUM + "!%^*", 14), lambda v: f'DB_PASSWORD="{v}"'),
    "api_key_assignment": (lambda r: pick(r, ALNUM, 28), lambda v: f"api_key: {v}"),
    "high_entropy": (lambda r: pick(r, B64, 44), lambda v: f"ENCRYPTION_KEY={v}"),
}

# How the written form sits in each artifact type.
CONTEXTS: dict[str, Callable[[str], str]] = {
    "diff": lambda s: (
        "diff --git a/app/settings.py b/app/settings.py\n--- a/app/settings.py\n+++ b/app/settings.py\n"
        f"@@ -1,2 +1,{2 + s.count(chr(10)) + 1} @@\n import os\n"
        + "".join(f"+{line}\n" for line in s.split("\n"))
        + " DEBUG = False\n"
    ),
    "log": lambda s: (
        "2026-11-23 10:00:00 INFO starting deploy\n"
        + "".join(f"2026-11-23 10:00:01 DEBUG {line}\n" for line in s.split("\n"))
        + "2026-11-23 10:00:02 INFO done\n"
    ),
    "markdown": lambda s: f"# Setup\n\nConfigure it like this:\n\n```\n{s}\n```\n\nThen run the tests.\n",
    "text": lambda s: f"notes from the incident\n{s}\nrotate this tomorrow\n",
}


# Wrappers written after the detectors were tuned, never used to tune them: the written form
# inside other formats, and vendor values alone under a neutral name (the format must speak).
HELD_OUT: dict[str, Callable[[str], str]] = {
    "json-string": lambda s: json.dumps({"steps": [{"run": s}]}, indent=2) + "\n",
    "compose-env": lambda s: (
        "services:\n  web:\n    environment:\n" + "".join(f"      - {line}\n" for line in s.split("\n"))
    ),
    "markdown-table": lambda s: (
        "| env | setting |\n|---|---|\n" + "".join(f"| prod | {line} |\n" for line in s.split("\n"))
    ),
    "docker-run": lambda s: "".join(f"docker run --rm -e '{line}' app:latest\n" for line in s.split("\n")),
}
NEUTRAL: dict[str, Callable[[str], str]] = {
    "python-call": lambda v: f'client = make_client("{v}", retries=3)\n',
    "json-value": lambda v: json.dumps({"settings": {"value": v}}) + "\n",
    "yaml-value": lambda v: f"deploy:\n  value: {v}\n",
    "prose": lambda v: f"The old one ({v}) was revoked on Monday.\n",
}
# The formats a value can be recognised by alone.
PREFIXED = (
    "aws_access_key",
    "github_classic",
    "github_fine_grained",
    "gitlab",
    "slack_token",
    "slack_webhook",
    "stripe",
    "google",
    "openai",
    "anthropic",
    "npm",
    "pypi",
    "sendgrid",
    "twilio",
    "mailchimp",
    "huggingface",
    "jwt",
)


def secret_value(kind: str, rng: random.Random) -> str:
    """A fresh fake secret of one kind (for private keys: the whole PEM block)."""
    return KINDS[kind][0](rng)


def written(kind: str, value: str) -> str:
    """The value as a user would have written it."""
    return KINDS[kind][1](value)


def core(kind: str, value: str) -> str:
    """The part of the value that must not survive (a PEM block's base64 body lines)."""
    if kind == "private_key":
        return value.split("\n")[2]
    return value


def write_samples(folder: Path, seed: int) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    expected: dict[str, dict[str, str]] = {}
    for kind in KINDS:
        value = secret_value(kind, rng)
        name = f"{kind}.txt"
        (folder / name).write_text(CONTEXTS["text"](written(kind, value)), encoding="utf-8")
        expected[name] = {"kind": kind, "secret": core(kind, value)}
    (folder / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", type=Path, required=True, help="folder for one sample file per kind")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    write_samples(args.write, args.seed)
