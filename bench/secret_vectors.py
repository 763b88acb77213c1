"""Secret-scanner test vectors, taken as test strings from public rule tests (never their code).

    python bench/secret_vectors.py extract --gitleaks DIR --detect-secrets DIR
    python bench/secret_vectors.py [--vectors FILE] [--seed N] [--show 10]
    python bench/secret_vectors.py --sources DIR [--sources DIR ...]   # false positives
    python bench/secret_vectors.py --speed FILE [--speed FILE ...]     # time against an encode

`extract` reads two pinned checkouts and writes tests/samples/secrets/vectors.json:
- gitleaks (MIT; `cmd/generate/config/rules/*.go`): each rule's literal true-positive and
  false-positive strings, and each `GenerateSampleSecrets(identifier, secret)` call as the
  identifier and the secret's shape (a literal, or the regular expression its value is drawn from);
- detect-secrets (Apache-2.0; `tests/plugins/keyword_test.py`): each keyword test line with the
  secret it must lose, or none.

The benchmark then measures, with values drawn afresh from each shape (seeded):
- **named**: every gitleaks sample value under its identifier's name in eight contexts (`.env`,
  YAML, JSON, Python, Go with a type, Java `setProperty`, make `?=`, a compose env list);
- **vendor, no name**: values whose format starts with a fixed prefix, alone in a log line;
- **own lines**: the rules' literal true positives and detect-secrets' keyword lines;
- **false positives**: the rules' literal false positives and detect-secrets' no-secret lines
  that a redaction changed.
A secret counts as gone when its value no longer appears in the redacted text.

`--sources` redacts every source, config and document file under each folder, leaving out test
folders (`tests`, `test`, `testing`, `__tests__`, `fixtures`, `testdata`, `test_*` files, whose
keys are test keys), and prints the share of lines a redaction changed: real package sources
hold no live secrets, so nearly every change is a false positive. `--speed` times redaction
against one `encode_ordinary` of the same text (o200k_base), best of three.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ctxguard.secrets.redact import redact  # noqa: E402
from ctxguard.secrets.values import switches  # noqa: E402

VECTORS = Path(__file__).resolve().parent.parent / "tests" / "samples" / "secrets" / "vectors.json"
_UTILS = {
    "Numeric": "[0-9]{%s}",
    "Hex": "[a-f0-9]{%s}",
    "AlphaNumeric": "[a-z0-9]{%s}",
    "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "AlphaNumericExtended": "[a-z0-9=_-]{%s}",
    "AlphaNumericExtendedLong": "[a-z0-9/=_+-]{%s}",
}
_STRING = re.compile(r'`([^`]*)`|"((?:[^"\\\n]|\\.)*)"')


def _go_string(match: re.Match[str]) -> str:
    raw, quoted = match.group(1), match.group(2)
    if raw is not None:
        return raw
    return bytes(quoted, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")


def _items(source: str, start: int, close: str) -> list[str]:
    """The top-level comma-separated items from source[start:] up to the matching `close`."""
    depth, items, at, i = 0, [], start, start
    while i < len(source):
        c = source[i]
        if c in '`"':
            end = _STRING.match(source, i)
            i = end.end() if end else i + 1
            continue
        if source.startswith("//", i):
            i = source.find("\n", i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0 and c == close:
                items.append(source[at:i])
                return [x.strip() for x in items if x.strip()]
            depth -= 1
        elif c == "," and depth == 0:
            items.append(source[at:i])
            at = i + 1
        i += 1
    return []


def _literal(item: str) -> str | None:
    """An item made only of string literals joined by `+`, as its text."""
    pieces = [p.strip() for p in re.split(r"\+(?=\s*[`\"])", item)]
    values = []
    for piece in pieces:
        match = _STRING.fullmatch(piece)
        if match is None:
            return None
        values.append(_go_string(match))
    return "".join(values)


def _shape(expr: str) -> str | None:
    """A GenerateSampleSecrets secret expression as one regular expression, or None."""
    out = []
    for piece in re.split(r"\+(?![^(]*\))", expr):
        piece = piece.strip()
        literal = _STRING.fullmatch(piece)
        if literal is not None:
            out.append(re.escape(_go_string(literal)))
            continue
        inner = re.fullmatch(r"secrets\.NewSecret\((.*)\)", piece, re.S)
        if inner is None:
            return None
        for part in re.split(r"\+(?![^(]*\))", inner.group(1)):
            part = part.strip()
            util = re.fullmatch(r'utils\.(\w+)\("(\d+)"\)', part)
            lit = _STRING.fullmatch(part)
            if util and util.group(1) in _UTILS:
                out.append(_UTILS[util.group(1)] % util.group(2))
            elif lit is not None:
                out.append(_go_string(lit))
            else:
                return None
    return "".join(out)


def extract(gitleaks: Path, detect_secrets: Path) -> dict[str, object]:
    """The vectors of both checkouts (see the module docstring)."""

    def show(repo: Path, path: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
        ).stdout

    def head(repo: Path) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()

    listing = subprocess.run(
        ["git", "-C", str(gitleaks), "ls-tree", "-r", "--name-only", "HEAD", "cmd/generate/config/rules/"],
        capture_output=True,
        text=True,
        check=True,
    )
    samples, tps, fps = [], [], []
    for path in sorted(p for p in listing.stdout.split() if p.endswith(".go")):
        source, rule = show(gitleaks, path), Path(path).stem
        for call in re.finditer(r"GenerateSampleSecrets\(", source):
            args = _items(source, call.end(), ")")
            if len(args) == 2 and _literal(args[0]) is not None:
                shape = _shape(args[1])
                if shape is not None:
                    samples.append({"rule": rule, "identifier": _literal(args[0]), "shape": shape})
        for block in re.finditer(r"\b(tps|fps)\s*(?::=\s*\[\]string\{|=\s*append\((?:tps|fps),)", source):
            close = "}" if block.group(0).rstrip().endswith("{") else ")"
            for item in _items(source, block.end(), close):
                text = _literal(item)
                if text and "\n" not in text.strip("\n") or text and len(text) < 400:
                    (tps if block.group(1) == "tps" else fps).append({"rule": rule, "text": text})
    keyword = show(detect_secrets, "tests/plugins/keyword_test.py")
    constants = dict(re.findall(r"^(\w+_SECRET) = '([^']*)'", keyword, re.M))
    cases = []
    for line, arg, expected in re.findall(r"^\s*\((['\"].*?['\"])\.format\((\w+)\), (\w+)\),", keyword, re.M):
        value = constants.get(arg)
        if value is not None:
            template = eval(line)  # a plain string literal from the test file  # noqa: S307
            cases.append({"text": template.format(value), "secret": constants.get(expected)})
    for line in re.findall(r"^\s*\((['\"][^'\"]*['\"]), None\),", keyword, re.M):
        cases.append({"text": eval(line), "secret": None})  # noqa: S307
    return {
        "sources": {
            "gitleaks": {"license": "MIT", "commit": head(gitleaks)},
            "detect-secrets": {"license": "Apache-2.0", "commit": head(detect_secrets)},
        },
        "samples": samples,
        "true_positives": tps,
        "false_positives": fps,
        "keyword_cases": cases,
    }


def draw(shape: str, rng: random.Random) -> str | None:
    """A value of a simple regular expression: literals, escapes and [classes]{n} or {n,m}."""
    out, i = [], 0
    while i < len(shape):
        c = shape[i]
        if c == "\\":
            out.append(shape[i + 1])
            i += 2
            continue
        if c == "[":
            end = shape.index("]", i + 1)
            alphabet = _expand(shape[i + 1 : end])
            i = end + 1
            count = re.match(r"\{(\d+)(?:,(\d+))?\}", shape[i:])
            n = 1
            if count:
                low, high = int(count.group(1)), int(count.group(2) or count.group(1))
                n = rng.randint(low, high)
                i += count.end()
            out.append("".join(rng.choice(alphabet) for _ in range(n)))
            continue
        if c in "(){}|?*+^$":
            return None
        out.append(c)
        i += 1
    return "".join(out)


def _expand(spec: str) -> str:
    chars, i = [], 0
    spec = (
        spec.replace("\\-", "\x00")
        .replace("\\/", "/")
        .replace("\\+", "+")
        .replace("\\.", ".")
        .replace("\\w", "a-zA-Z0-9_")
        .replace("\\d", "0-9")
        .replace("\\=", "=")
    )
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            chars.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            chars.append(spec[i])
            i += 1
    return "".join(chars).replace("\x00", "-")


# The eight places a named value is written (the identifier as gitleaks' samples spell it).
CONTEXTS = {
    ".env": lambda i, v: f"{i.upper()}_TOKEN={v}\n",
    "yaml": lambda i, v: f"config:\n  {i}_token: {v}\n",
    "json": lambda i, v: json.dumps({f"{i}_token": v}, indent=2) + "\n",
    "python": lambda i, v: f"{i}Token = '{v}'\n",
    "go typed": lambda i, v: f'var {i}Token string = "{v}"\n',
    "java setProperty": lambda i, v: f'System.setProperty("{i.upper()}_TOKEN", "{v}");\n',
    "make ?=": lambda i, v: f'{i.upper()}_TOKEN ?= "{v}"\n',
    "compose env list": lambda i, v: f"    environment:\n      - name: {i.upper()}_TOKEN\n        value: {v}\n",
}
_PREFIXED = re.compile(r"^(?:[A-Za-z0-9_.~-]|\\[.~-]){3,}")


def measure(vectors: dict[str, list[dict[str, str]]], seed: int) -> dict[str, tuple[int, int, list[str]]]:
    """Per measure: (hits, tries, a few misses)."""
    rng = random.Random(seed)
    scores: dict[str, tuple[int, int, list[str]]] = {}

    def score(name: str, hit: bool, example: str) -> None:
        hits, tries, misses = scores.get(name, (0, 0, []))
        if not hit and len(misses) < 40:
            misses.append(example)
        scores[name] = (hits + hit, tries + 1, misses)

    for sample in vectors["samples"]:
        value = draw(sample["shape"], rng)
        if value is None:
            continue
        ident = sample["identifier"].lower().replace(" ", "_")
        for place, write in CONTEXTS.items():
            text = write(ident, value)
            score("named", value not in redact(text).text, f"{sample['rule']} {place}: {text.strip()}")
        if _PREFIXED.match(sample["shape"]):
            text = f"2024-05-14 12:00:01 INFO uploading with {value} to the registry\n"
            score("vendor, no name", value not in redact(text).text, f"{sample['rule']}: {text.strip()}")
    for case in vectors["true_positives"]:
        text, secret = case["text"], _longest_token(case["text"])
        if secret:
            score("own lines", secret not in redact(text).text, f"{case['rule']}: {text.strip()[:160]}")
    for case in vectors["keyword_cases"]:
        text = case["text"]
        if case["secret"]:
            score("own lines", case["secret"] not in redact(text).text, f"keyword: {text.strip()[:160]}")
        else:
            score("false positives (kept)", redact(text).text == text, f"keyword: {text.strip()[:160]}")
    for case in vectors["false_positives"]:
        text = case["text"]
        score("false positives (kept)", redact(text).text == text, f"{case['rule']}: {text.strip()[:160]}")
    return scores


_RUN = re.compile(r"[A-Za-z0-9+/=_.~:-]{12,}")


def _longest_token(text: str) -> str | None:
    """A true-positive line's secret: its run of token characters (trimmed of a name before `=`
    or `:`) that changes most often between cases and digits, as random text does."""
    runs = []
    for run in _RUN.findall(text):
        run = re.split(r"[=:](?=.)", run)[-1] if re.match(r"[A-Za-z_]+[=:]", run) else run
        if len(run) >= 12 and (any(c.isdigit() for c in run) or (run.lower() != run and run.upper() != run)):
            runs.append(run.strip(".:"))
    return max(runs, key=lambda run: (switches(run), len(run))) if runs else None


_SOURCE_SUFFIXES = {
    ".py",
    ".js",
    ".ts",
    ".json",
    ".yaml",
    ".yml",
    ".md",
    ".rst",
    ".cfg",
    ".toml",
    ".txt",
    ".go",
    ".rb",
    ".java",
    ".ini",
    ".sh",
}
_TEST_PARTS = {"tests", "test", "testing", "__tests__", "fixtures", "testdata"}


def false_positives(folders: list[Path], show: int) -> None:
    """Lines changed by redaction in real sources outside test folders."""
    total = changed = 0
    examples: list[str] = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if (
                path.suffix not in _SOURCE_SUFFIXES
                or not path.is_file()
                or path.name.startswith("test_")
                or _TEST_PARTS & {p.lower() for p in path.parts}
            ):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if len(text) > 3_000_000:
                continue
            before, after = text.splitlines(), redact(text).text.splitlines()
            total += len(before)
            for old, new in zip(before, after):
                if old != new:
                    changed += 1
                    examples.append(f"{path.name}: {new.strip()[:160]}")
    print(f"lines changed in sources outside tests: {changed:,} / {total:,} = {changed / max(1, total):.4%}")
    for example in examples[:show]:
        print(f"    {example}")


def speed(files: list[Path]) -> None:
    """Redaction time over one encode of the same text."""
    import time

    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        timings = []
        for work in (lambda: encoding.encode_ordinary(text), lambda: redact(text)):
            best = float("inf")
            for _ in range(3):
                started = time.perf_counter()
                work()
                best = min(best, time.perf_counter() - started)
            timings.append(best)
        print(
            f"{path.name:<48} {len(text) / 1e6:6.2f} MB  encode {timings[0]:.3f} s  redact {timings[1]:.3f} s"
            f"  ({timings[1] / timings[0]:.2f}x)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", nargs="?", choices=["measure", "extract"], default="measure")
    parser.add_argument("--gitleaks", type=Path)
    parser.add_argument("--detect-secrets", type=Path)
    parser.add_argument("--vectors", type=Path, default=VECTORS)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show", type=int, default=0, help="print this many misses per measure")
    parser.add_argument(
        "--sources",
        type=Path,
        action="append",
        default=[],
        help="a folder of real sources for the false-positive rate (repeatable)",
    )
    parser.add_argument("--speed", type=Path, action="append", default=[], help="a file to time (repeatable)")
    args = parser.parse_args()
    if args.sources or args.speed:
        if args.sources:
            false_positives(args.sources, args.show)
        if args.speed:
            speed(args.speed)
        return 0
    if args.action == "extract":
        if not args.gitleaks or not args.detect_secrets:
            parser.error("extract needs --gitleaks and --detect-secrets")
        data = extract(args.gitleaks, args.detect_secrets)
        args.vectors.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(
            f"wrote {args.vectors}: {len(data['samples'])} samples, {len(data['true_positives'])} true "
            f"and {len(data['false_positives'])} false positives, {len(data['keyword_cases'])} keyword cases"
        )
        return 0
    vectors = json.loads(args.vectors.read_text(encoding="utf-8"))
    for name, (hits, tries, misses) in measure(vectors, args.seed).items():
        print(f"{name:<24} {hits:>5} / {tries:<5} {hits / max(1, tries):7.1%}")
        for example in misses[: args.show]:
            print(f"    miss: {example[:200]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
