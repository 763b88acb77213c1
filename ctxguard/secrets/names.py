"""Which names hold secrets: a name is read as its parts, never searched for substrings.

`ADMIN_PASSWORD`, `minioSecretKey` and `rabbitmq.default.pass` are split on `_`, `.`, `-` and
case changes into whole words. A secret word (`password`, `token`, `secret`, `api key`, `pat`, …)
may stand anywhere in the name: last (`DB_PASSWORD`), or before a qualifier (`DB_PASSWORD_TEST`,
`TOKEN_VAULT`, `password_confirmation`), where only a random-looking value counts. A word after it
that names what the value *is* when it is not the secret itself (`PASSWORD_MIN_LENGTH`,
`token_url`, `TOKEN_HEADER`, `password_hash`) and `public_key` name something else. Words like
`admin`, `max` or `hash` only matter as parts, so `MAXMIND_LICENSE_KEY` and
`HASHICORP_VAULT_TOKEN` are secret names.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["password", "token", "api_key", "secret"]

_PARTS = re.compile(
    r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-z])(?=[0-9]{1,2}(?![0-9a-z]))"
)

_PASSWORD = frozenset(
    """
    password passwd pass pwd passphrase passcode pword pw passwort contrasena senha motdepasse
    """.split()
)
_KEY_OWNERS = frozenset(
    """
    api access secret private license licence master encryption encrypt signing sign client app
    application auth service account storage subscription deploy webhook admin root consumer hmac
    jwt crypto aes cipher shared ssh gpg pgp session cookie stripe twilio sendgrid mailgun openai
    anthropic developer dev server integration management write read ingest ingestion partner
    merchant tenant project org organization personal user bot rest secure security google maps
    firebase algolia search mapbox aws azure gcp cloud provider sdk
    """.split()
)
# Compound words that hold a secret word without a separator (`apikey`, `authtoken`).
_COMPOUND_TAILS: tuple[tuple[str, Kind], ...] = (
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("pwd", "password"),
    ("apikey", "api_key"),
    ("token", "token"),
    ("secretkey", "secret"),
    ("accesskey", "secret"),
    ("privatekey", "secret"),
    ("secret", "secret"),
    ("licensekey", "secret"),
    ("masterkey", "secret"),
    ("signingkey", "secret"),
    ("encryptionkey", "secret"),
)
_MAYBE = frozenset(
    """
    key keys auth credential credentials cred creds signature sig salt session cookie private
    secrets pin otp seed dsn jwt
    """.split()
)
# Parts after the secret word that make the name hold something about the secret, not the secret
# (`PASSWORD_MIN_LENGTH`, `token_url`, `password_hash`): its value is never redacted, even when it
# looks random (a digest, an id, a path).
_NOT_AFTER = frozenset(
    """
    length len min max size count counter hash hashed digest sha sha1 sha256 sha512 md5 checksum
    fingerprint id ids uuid guid url uri urls path paths file files filename filepath dir directory
    header headers field fields label labels prefix suffix format pattern regex type types name
    names kind class endpoint host port username login email version template arn ref reference
    index idx column table schema symbol stdin env var variable param params parameter policy
    policies rule rules expiry expires expiration expire expired ttl timeout lifetime age hint
    placeholder error errors message msg title description desc help link
    """.split()
)
# Parts after the secret word that say which of several secrets it is, or something about it
# that a random value would still be the secret of (`DB_PASSWORD_TEST`, `TOKEN_VAULT`,
# `password_confirmation`, `JWT_SECRET_LAST`): only a random-looking value counts there.
_QUALIFIED_AFTER = frozenset(
    """
    enabled enable disabled required require reset mode strategy validator validation valid
    invalid strength input button form page generator provider manager service store cache
    handler method flag option options config configuration settings location limit retries
    attempts changed updated created at date time timestamp exists check verify verification
    confirmation confirm request response callback function fn func source encoding algorithm
    algo scheme prompt info meta metadata list num number total usage used budget window parser
    lexer key keys storage vault secret pair ring chain server issuer audience scope scopes
    grant auth flow client last rotated rotation owner arg args argument spec ctx context obj
    object instance impl builder factory model entity dto serializer view widget component
    module package lib util utils helper test tests mock stub fixture example sample doc docs
    terminator end start begin compound char chars re matcher kw tokens
    """.split()
)
# Parts before the secret word that make the whole name something other than a credential.
_NOT_BEFORE = frozenset(
    """
    public publishable cancel next page continuation pagination cursor sync bos eos pad unk sep cls
    mask special start end stop max min num total count prompt completion input output forgot show
    hide toggle verify check validate require required has is use uses enable enabled with no
    without allow sort cache foreign partition range row lookup map dict unique index idempotency
    i18n label placeholder hint error invalid wrong missing empty weak strong lexer parse parser
    csrf xsrf type kind format field column param dummy fake mock example sample
    """.split()
)


# Every name classify accepts holds one of these, lower-cased: its secret word's (tested against
# the lists above). A line without any holds no secret name: the assignment readers skip it.
STEMS = (
    *("pass", "pwd", "pw", "secret", "token", "key", "auth", "cred", "sig", "salt", "session", "cookie"),
    *("private", "dsn", "jwt", "pat", "pin", "otp", "seed", "senha", "contrasena", "motdepasse"),
)


@dataclass(frozen=True)
class SecretName:
    """What a name says about its value: its kind, and whether only a random value counts."""

    kind: Kind
    sure: bool


def parts(name: str) -> list[str]:
    """A name's words, lower-cased: `minioSecretKey` -> minio, secret, key."""
    return [p.lower() for p in _PARTS.split(name) if p]


@functools.lru_cache(maxsize=1 << 12)
def classify(name: str) -> SecretName | None:
    """The secret a name holds, or None for a name of something else. A dotted name is read by
    its last segment (`spring.datasource.password`; `Token.String.Symbol` is a symbol), and only
    when that holds no secret word and the name is a lower-case configuration path, as a whole,
    where only a random value counts.
    (Remembered: a log or a report names the same few keys on line after line.)"""
    if "::" in name:
        return None  # `AWS::IAM::AccessKey`: a type's name
    if "." not in name.strip("."):
        return _read(parts(name))
    found = _read(parts(name.rsplit(".", 1)[-1]))
    if found is None and _KEY_PATH.fullmatch(name):  # `password.storage`, `api.key.primary`
        whole = _read(parts(name))
        found = SecretName(whole.kind, False) if whole is not None else None
    return found


# A configuration key's dotted path (`api.key.primary`), not code's `Class.ATTRIBUTE`.
_KEY_PATH = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)+")


def _read(words: list[str]) -> SecretName | None:
    """The secret a name's words hold: the last secret word, read with the words around it."""
    for i in range(len(words) - 1, -1, -1):
        found = _secret_word(words[i], words[:i])
        if found is None:
            continue
        after = words[i + 1 :]
        if any(w in _NOT_AFTER for w in after):
            return None  # `PASSWORD_MIN_LENGTH`, `token_url`, `TOKEN_HEADER`
        if any(w in _QUALIFIED_AFTER for w in after):
            return SecretName(found.kind, False)  # `DB_PASSWORD_TEST`, `TOKEN_VAULT`
        return found
    return None


def _secret_word(word: str, before: list[str]) -> SecretName | None:
    """What one part holds, given the parts before it (None: not a secret word here). A word of
    `_NOT_BEFORE` just before it (`CACHE_PASSWORD`, `INDEX_TOKEN`, `pad_token`) makes it a name
    whose value is a secret only when it looks random: any name ending in a secret word holds a
    secret when its value is random-looking. Only `public` ones never do."""
    if any(w in ("public", "publishable") for w in before):
        return None
    found = _word(word, before)
    if found is None:
        compound = _compound(word)
        if compound is None:
            return None
        head, found = compound
        if head in ("public", "jsonweb", "web"):
            return None
        if head in _NOT_BEFORE:
            return SecretName(found.kind, False)
    if before and before[-1] in _NOT_BEFORE:
        return SecretName(found.kind, False)
    return found


def _word(word: str, before: list[str]) -> SecretName | None:
    if word in _PASSWORD:  # (`PWD` alone is the shell's working directory: a random value only)
        return SecretName("password", word != "pwd" or bool(before))
    if word == "token":
        return SecretName("token", True)
    if word == "pat":  # a personal access token (`GITHUB_PAT`); `URL_PAT` is as often a pattern
        return SecretName("token", False)
    if word == "secret":
        return SecretName("secret", True)
    if word == "key" and before and before[-1] in _KEY_OWNERS:
        return SecretName("api_key" if before[-1] in ("api", "x") else "secret", True)
    if word in ("key", "keys") and before and before[-1] in ("api", "apis"):
        return SecretName("api_key", True)
    if word in _MAYBE:
        return SecretName("secret", False)
    return None


def _compound(word: str) -> tuple[str, SecretName] | None:
    """`apikey` -> ("", api_key); `authtoken` -> ("auth", token)."""
    for tail, kind in _COMPOUND_TAILS:
        if word.endswith(tail) and (word != tail or tail not in ("password", "token", "secret")):
            return word[: -len(tail)], SecretName(kind, True)
    if word.endswith("key") and any(word[:-3].endswith(owner) for owner in _KEY_OWNERS):
        return "", SecretName("secret", True)  # `CLIENTKEY`, `servicekey`, `AIRBRAKEUSERKEY`
    if word.endswith("key") and len(word) >= 7:  # `SPOTIFYKEY`: a key of something, as `SPOTIFY_KEY`
        return word[:-3], SecretName("secret", False)
    return None
