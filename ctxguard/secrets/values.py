"""What a value looks like: random, a placeholder, code, a version, a type, words.

A secret name's value is redacted unless its shape says it is not a secret: a placeholder
(`${DB_PASSWORD}`, `<token>`, `changeme`), a version range in a manifest (`^9.0.0`), a type
(`string`), human words (`Forgot your password?`), a header name (`X-Auth-Token`) or, in code, a
reference to something else (`source.token`, `accessToken`, `get_token(request)`).
"""

from __future__ import annotations

import math
import re
from collections import Counter


def looks_random(value: str) -> bool:
    """A value that looks machine-generated: long, token characters only, mixed, high entropy."""
    if not 16 <= len(value) <= 4096 or _TOKEN_CHARS.fullmatch(value) is None or _WORDY.search(value):
        return False
    if _CAMEL_WORDS.fullmatch(value):  # `defaultToConfig2`, `MaxRetryCount`: a name in code
        return False
    if _DOTTED.fullmatch(value) and all(_SEGMENT.fullmatch(p) for p in value.split(".")):
        return False  # `fs.s3.enableServerSideEncryption`, `jetbrains.mps.v8_elimination`: a property
    digits = sum(c.isdigit() for c in value)
    mixed = any(c.islower() for c in value) + any(c.isupper() for c in value) + (digits > 0)
    if not digits or mixed < 2 or switches(value) < len(value) / 8:
        return False  # `jetbrains.mps.v8_elimination`, an alphabet `ABC…xyz0123456789`
    return entropy(value) >= 3.3


def punctuated(value: str) -> bool:
    """A generated password with punctuation among its characters (`Xk9!mQ2@pL7^wR4z`): 10 to 128
    characters without spaces, quotes or brackets, two or more symbols a name never holds, upper
    and lower case, changing case every few characters."""
    if not 10 <= len(value) <= 128 or _PUNCTUATED.fullmatch(value) is None:
        return False
    symbols = sum(c in _SYMBOLS for c in value)
    if symbols < 2 or not any(c.islower() for c in value) or not any(c.isupper() for c in value):
        return False  # (one `%` is as often a format: `VS%0.f0COMNTOOLS`)
    letters = sum(c.isalnum() for c in value)
    return switches(value) >= letters / 5 and entropy(value) >= 3.0


_SYMBOLS = frozenset("!@#$%^&*+=~?")
_PUNCTUATED = re.compile(r"[A-Za-z0-9!@#$%^&*+=~?_.\-/|]+")


def switches(value: str) -> int:
    """How often a value changes between lower case, upper case and digits: random text does
    every few characters, names and words rarely."""
    classes = [0 if c.islower() else 1 if c.isupper() else 2 for c in value if c.isalnum()]
    return sum(a != b for a, b in zip(classes, classes[1:]))


_FILLER = re.compile(r"x{6}|X{6}|\*{6}|_PUT_|YOUR_|_HERE|EXAMPLE")


def filler(value: str) -> bool:
    """A documented example rather than a key: `ghp_xxxxxxxx…`, `AKIAXXXXXXXX…`, `glc_1111…=`."""
    tail = value.split("_")[-1] if "_" in value[:12] else value
    return _FILLER.search(value) is not None or (len(tail) >= 12 and len(set(tail.strip("="))) <= 2)


def token_like(value: str) -> bool:
    """Shaped like a key even without digits (`DpHXOuGTWGEgWCORmVuN…`): 16+ token characters whose
    case changes every few characters, not words."""
    return (
        16 <= len(value) <= 4096
        and _TOKEN_CHARS.fullmatch(value) is not None
        and _WORDY.search(value) is None
        and _CAMEL_WORDS.fullmatch(value) is None
        and switches(value) >= len(value) / 6
    )


def entropy(value: str) -> float:
    """Shannon entropy of a value's characters, in bits."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def not_words(value: str) -> bool:
    """A value with a digit that is not words joined by _ - or . (a prefixed key's random part)."""
    return any(c.isdigit() for c in value) and _WORDY.search(value) is None


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_.~|-]+")
_DOTTED = re.compile(r"[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)+")
_SEGMENT = re.compile(
    r"[a-z]{1,3}\d{0,6}|[A-Za-z][a-z]+(?:[A-Z][a-z]+)*\d{0,3}(?:[_-][a-z0-9]+)*"
    r"|[A-Z][A-Za-z]*\d*(?:[A-Z][a-z]+)+"  # `Ed25519PrivateKey`, `RSAPrivateKey`: a class
)
_CAMEL_WORDS = re.compile(r"[A-Za-z][a-z]{1,}(?:[A-Z][a-z]+)*[A-Z][a-z]{2,}\d{0,3}")
# Three or more words joined by _ - or . (`user_profile_cache`, `my-app-key-name`): a name.
_WORDY = re.compile(r"(?:[A-Za-z][a-z]{2,}[_.-]){2,}[A-Za-z][a-z]{2,}")

_PLACEHOLDER = re.compile(
    r"(?:\$|\{|<|%\(|%[A-Za-z_]+%|\[|\*{3}|#|@\w+@|x{3,}|X{3,}|\.{3}|…|null$|none$|nil$|true$|false$"
    r"|undefined$|changeme|change[_-]?me|change[_-]?it|redacted|your[_-]|my[_-]?secret|example|dummy"
    r"|placeholder|replace[_-]?me|todo|fixme|n/?a$|tbd$|read$|write$|required$|optional$|env$|-?\d{1,9}(?:\.\d+)?$"
    r"|-+$|_+$|\*+$|\?+$|secrets\.|vault:|env\(|ENV\[|process\.env|os\.environ|getenv|sops:|arn:|ref\+"
    r"|file:|!secret|!vault|<%|\$\(|.*(?:x{6}|X{6}|\*{6}|0{8})"
    r"|(?:test|fake|mock|dummy|sample|example|demo)[_-]"
    r"|(?:pass|password|passwd|pwd|secret|token|foo|bar|baz|foobar|qux|test|testing|testpass|dummy|fake|mock"
    r"|sample|demo|xyz|abc|user|username|hello|world)\d{0,3}$)",
    re.I,
)
# A template that fills the value in later: `f"share-{id}"`, `"%s"`, `"${HOME}/x"`.
_TEMPLATE = re.compile(r"\{[A-Za-z_][\w.\[\]'\"]+\}|\$\{[\w.:-]+\}|\{\{[^{}]+\}\}|%\(\w+\)[sdr]|<%")
_PRINTF = re.compile(r"%[sdr]\b")  # (`%d` inside a generated password is two of its characters)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # ENV_VAR_NAME: where the secret lives


def placeholder(value: str) -> bool:
    """A value that stands for a secret rather than being one: `${VAR}`, `<token>`, `xxx`, …"""
    value = value.strip("\"'`")
    if not value or not any(c.isalnum() for c in value):
        return True
    if _ENV_NAME.fullmatch(value):
        return not looks_random(value)  # `DB_PASSWORD` names a variable; `API_KEYN2B1NFN5CP…` is a key
    if _TEMPLATE.search(value) or (_PRINTF.search(value) and not punctuated(value)):
        return True
    return _PLACEHOLDER.match(value) is not None


_SEMVER = r"v?\d+(?:\.(?:\d+|x|\*)){1,3}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
_PIN = rf"(?:(?:[\^~]|[<>]=?|==?)\s*(?:{_SEMVER}|\d+)|{_SEMVER})"
_VERSION = re.compile(
    rf"(?:{_PIN}(?:\s*(?:\|\||,|\s-\s|\s)\s*{_PIN})*|\*|latest|next|workspace:\S*|npm:\S+@\S+"
    r"|(?:git\+)?https?://\S+|github:\S+|link:\S+|file:\S+)"
)
_TYPE = re.compile(
    r"(?:string|str|number|int|integer|float|double|boolean|bool|bytes|object|any|unknown|char|"
    r"text|varchar(?:\(\d+\))?|uuid|date|datetime|secretstr|secretbytes|optional\[\w+\]|"
    r"\w+\[\w+\]|array|list|dict|map|void|never|none|null|undefined)"
    r"(?:\s*\|\s*(?:string|null|undefined|none|number))*[?!;,]?",
    re.I,
)
_HEADER = re.compile(r"(?:[A-Z][a-z0-9]*|[A-Z]+)(?:-(?:[A-Z][a-z0-9]*|[A-Z]+))+|[A-Z][a-z]+(?:-[A-Z][a-z]+)*")
_WORD = re.compile(r"[(\"'«¿¡]?[^\W\d_]+(?:['’-][^\W\d_]+)*[)\"'»?!.,:;…]*|[&/–—-]")


def version(value: str) -> bool:
    """A version or version range, as a manifest pins a dependency: `^9.0.0`, `~1.2`, `latest`."""
    return _VERSION.fullmatch(value.strip()) is not None


def type_name(value: str) -> bool:
    """A type, as an annotation or a schema names it: `string`, `Optional[str]`, `string | null`."""
    return _TYPE.fullmatch(value.strip()) is not None


def header_name(value: str) -> bool:
    """An HTTP header's or a label's name: `X-Auth-Token`, `Authorization`."""
    return _HEADER.fullmatch(value) is not None


def prose(value: str) -> bool:
    """Words a person reads (`Forgot your password?`): two or more spaced words, nearly all of
    them plain words."""
    tokens = value.split()
    if len(tokens) < 2:
        return False
    words = sum(1 for t in tokens if _WORD.fullmatch(t))
    sentence = value.rstrip()[-1:] in "?!.:…" or re.match(r"[A-Z][a-z]+ [a-z]", value) is not None
    return words >= 2 and words >= 0.75 * len(tokens) and sentence


_REFERENCE = re.compile(
    r"[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)+(?:\(\))?"  # a.b, a?.b
    r"|[a-z_$][a-z0-9_$]*_[a-z0-9_]*"  # new_token
    r"|[a-z_$][a-z$]*(?:[A-Z][a-z$]+)+\d{0,3}"  # accessToken, defaultToConfig2
    r"|[A-Z][a-z]+(?:[A-Z][a-z]+)+"  # TaskToken: a class
    r"|(?:self|this|cls|props|state|ctx|config|settings|options|opts|env|args)\b\S*"
)
_CALL = re.compile(r"[\w.$]+\s*[(\[]")


def reference(value: str) -> bool:
    """An unquoted value that names something in code (`source.token`, `new_token`, `f(x)`)."""
    if _CALL.match(value):
        return True
    return _REFERENCE.fullmatch(value) is not None and not looks_random(value)


CAMEL_NAME = re.compile(r"[a-z]{2,}(?:[A-Z][a-z]{2,})+")  # `eksKeypair`: a resource's or a variable's name
_PATTERN = re.compile(r"\(\?[:=!<P]|\\[wdsSWDbB]|\[\^|\.\*|\.\+|\)\?|\|\(")


def pattern(value: str) -> bool:
    """A regular expression (`(?:[{_punct}]+|…)`, `[^\\W\\d]\\w*`): a lexer's token, not a secret."""
    return _PATTERN.search(value) is not None


# A number as code writes a constant (`0x8`, `1e-3`, `0o755`, `10_000L`); a longer run of digits
# may be a key (Discord's are all digits; an Ethereum private key is `0x` and 64 hex digits).
_NUMBER = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F_]{1,16}|0[oObB][0-7_]+|\d{1,3}(?:_\d{3})+|\d{1,9}(?:\.\d+)?(?:[eE][-+]?\d+)?)[uUlLfFnN]*"
)


def kept(value: str, name_words: list[str]) -> bool:
    """True for a value a secret name may hold that is not a secret: see the module docstring.
    (References are judged by the caller, which knows whether the line is code.)"""
    bare = value.strip()
    if (
        _NUMBER.fullmatch(bare)
        or placeholder(bare)
        or filler(bare)
        or version(bare)
        or type_name(bare)
        or prose(bare)
        or header_name(bare)
        or pattern(bare)
    ):
        return True
    flat = re.sub(r"[^a-z0-9]", "", bare.lower())
    return bool(flat) and flat in "".join(name_words)  # `PassStateExited = "PassStateExited"`
