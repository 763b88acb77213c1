"""Needle recall: do the facts a reviewer came for survive the cut?

    python bench/needles.py build --out DIR [--cache DIR] [--semver REPO] [--cloudevents REPO]
    python bench/needles.py measure --cases DIR [--ratios 0.5,0.2,0.1,0.05,0.02,0.01] [--show N] [--ceiling]

`build` makes real tool output from pinned projects, each with a small injected fault, and
writes DIR/<case>.<ext> with DIR/<case>.needles.json beside it. The facts (needles) are
extracted from the raw output by fixed rules, the same for every project:

| family | artifact | needles |
|---|---|---|
| pytest-log | `pytest -v`, `pytest`, `pytest --tb=short` and `pytest -q -rA` output of a test suite with a flipped condition, and the default run as a GitHub Actions job log holds it (`-actions.log`: each line after the runner's timestamp) | each failing test id, its first `E ` line, each `path:line: Error` location, the summary line |
| pytest-json | the same run's `--json-report` | each failing test's nodeid and the first line of its crash message |
| compiler | `gcc -fsyntax-only` of two C files with injected faults (a type error, an undeclared name, a missing `;`, one inside a macro), with few and with many warnings on | every `error:` line |
| diff | `git diff` between two releases committed in turn, one source line flipped in the newer | the injected `+` line |
| history | `git log -p` of the same change made as three commits (its changed files in path order, a third each, the flipped line among them) | the injected `+` line and each commit's subject |
| markdown | specifications (SemVer, CloudEvents) | every sentence with an upper-case RFC 2119 word |
| typecheck | `mypy --strict` of an untyped project (about 1,200 errors before the faults), plain and `--pretty --show-column-numbers`, with four injected faults (two undefined names, a call with too many arguments, a missing attribute) | every `error:` line the faults add (not in the run on the pristine tree) |
| lint | `ruff check --select ALL` of the same project with the same faults, `--output-format concise` and `full` | every violation the faults add: its concise line; in the full form its `CODE message` line and its `--> path:line:col` line |
| junit | the pytest-log runs' `--junitxml` reports, in pytest's two dialects (`xunit1` in the verbose run, with each testcase's `file` and `line`; the default `xunit2` in the `--tb=short` run), and more-itertools' unittest suites run by xmlrunner (a report per class with failures), by nose2's junitxml plugin and by green (`--junit-report`: an `<error>` with its traceback and no message) | each failing or erroring testcase's `name` and the first line of its failure's `message` (else of its text) |
| unittest-log | `python -m unittest discover` output (plain and `-v`) of a unittest suite with a flipped condition | each `FAIL:`/`ERROR:` header line, each traceback's last frame (`File "…", line N, in fn`) and its exception's first line, the verdict line (`FAILED (failures=2, …)`) |
| sarif | `ruff check --select ALL --output-format sarif` and `flake8 --format=sarif` (flake8-sarif) of the typecheck project with the same faults | each result the faults add: its `message.text` and its `path:line` (the uri without a `file://` scheme) |

The pinned inputs: more-itertools 10.1.0/10.2.0, toolz 0.12.0/0.12.1, packaging 23.2/24.0 (a
src layout, 26,852 tests), simplejson 3.19.1/3.19.2, MarkupSafe 2.1.4/2.1.5, cachetools 5.3.2/5.3.3
(a mixin's tests in eight cache classes) and idna 3.6/3.7 (a unittest suite with a test per line of
Unicode's test file) sdists from PyPI (`pip download`), pytest-json-report 1.5.0 for the JSON reports (and pretend 1.0.9, which packaging's
tests import), flake8 7.1.1 with flake8-sarif 1.0.15 for the second SARIF tool,
unittest-xml-reporting 4.0.0, nose2 0.16.0 and green 4.0.2 for three more JUnit XML writers, mypy and ruff as the `lint` extra pins them (mypy 2.4.1, ruff 0.17.6) over toolz
0.12.1 and cachetools 5.3.3 for the typecheck and lint reports, and two git checkouts given by path (semver/semver at f99d548, cloudevents/spec
at c2845a4), read at those commits. None of them is in the dev corpus.

`measure` cuts every case to each ratio of its raw tokens with ctxguard, with a head cut and
with a tail cut of the same token budget, and prints needle recall per family and ratio (a
needle counts when its text, white space squeezed, is in the content). `--ceiling` adds what
no cut can beat: the most needles whose own tokens (each with a line break), shortest first,
fit the budget less the tier-3 marker, with nothing else shown (no heading, no gap line); and
`gapped`, what a cut that marks what it leaves out can keep at most: the same needles, each cut
to itself for free, but each run of them on adjacent raw lines after a gap line (`... (lines
A-B omitted)`, at its cheapest), taken greedily by tokens per needle (an estimate, not a proof:
the greedy choice is not always the best one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SDISTS = (
    "more-itertools==10.1.0",
    "more-itertools==10.2.0",
    "toolz==0.12.0",
    "toolz==0.12.1",
    "simplejson==3.19.1",
    "simplejson==3.19.2",
    "packaging==23.2",
    "packaging==24.0",
    "markupsafe==2.1.4",
    "markupsafe==2.1.5",
    "cachetools==5.3.2",
    "cachetools==5.3.3",
    "idna==3.6",
    "idna==3.7",
)
REPORT_PLUGIN = (
    "pytest-json-report==1.5.0",
    "pytest-metadata==3.1.1",
    "pretend==1.0.9",
    "flake8==7.1.1",
    "flake8-sarif==1.0.15",
    "unittest-xml-reporting==4.0.0",
    "nose2==0.16.0",
    "green==4.0.2",
)  # (pretend: packaging's tests; flake8 and its SARIF formatter: the second SARIF tool;
# xmlrunner, nose2 and green: three more JUnit XML writers, for the unittest suites)
# The run that also writes a JUnit XML report, and in which dialect: pytest's xunit1 (with each
# testcase's file and line) in the verbose run, its default xunit2 in the --tb=short run.
JUNIT_RUNS = {"-verbose": "xunit1", "-short": "xunit2"}
# How each test suite's run is written: `pytest -v`, plain `pytest`, `--tb=short`, `-q -rA` (its
# short summary lists every passing test too).
PYTEST_MODES = (("-verbose", ("-v",)), ("", ()), ("-short", ("--tb=short",)), ("-quiet", ("-q", "-rA")))
SEMVER = ("f99d5485190a47c0863949e7da810a5553e0ed4d", ("semver.md",))
CLOUDEVENTS = (
    "c2845a49bc9831be02f305a4a792401b932d77d4",
    ("cloudevents/spec.md", "cloudevents/bindings/http-protocol-binding.md", "subscriptions/spec.md"),
)

# (case, project folder, source file, old, new, test folder): one flipped condition each.
PYTEST_CASES = (
    (
        "mit-empty-window",
        "more-itertools-10.2.0",
        "more_itertools/more.py",
        "    if n == 0:\n        yield tuple()",
        "    if n == 1:\n        yield tuple()",
        "tests",
    ),
    (
        "mit-window-step",
        "more-itertools-10.2.0",
        "more_itertools/more.py",
        "    if step < 1:\n        raise ValueError('step must be >= 1')",
        "    if step < 2:\n        raise ValueError('step must be >= 1')",
        "tests",
    ),
    ("toolz-merge-sorted", "toolz-0.12.1", "toolz/itertoolz.py", "    if N < 2:", "    if N <= 2:", "toolz/tests"),
    (  # (only a quoted string changes: a cut on its own ranks the edit after code edits)
        "mit-grouper-fill",
        "more-itertools-10.2.0",
        "more_itertools/recipes.py",
        "    if incomplete == 'fill':",
        "    if incomplete == 'full':",
        "tests",
    ),
    (  # (a src layout; the C speedups left unbuilt: the pure-Python methods run)
        "markupsafe-mul",
        "MarkupSafe-2.1.5",
        "src/markupsafe/__init__.py",
        "        if isinstance(num, int):\n            return self.__class__(super().__mul__(num))",
        "        if not isinstance(num, int):\n            return self.__class__(super().__mul__(num))",
        "tests",
    ),
    (
        "packaging-prerelease",
        "packaging-24.0",
        "src/packaging/version.py",
        "return self.dev is not None or self.pre is not None",
        "return self.dev is not None and self.pre is not None",
        "tests",
    ),
    (  # (a src layout; a mixin gives most tests to eight cache classes: the same names fail in each)
        "cachetools-size",
        "cachetools-5.3.3",
        "src/cachetools/__init__.py",
        "        if size > maxsize:",
        "        if size >= maxsize:",
        "tests",
    ),
    ("idna-label", "idna-3.7", "idna/core.py", "    if len(label) > 63:", "    if len(label) > 62:", "tests"),
)
# (case, project folder, source file, old, new, test folder): a unittest suite, run by unittest
# itself (`python -m unittest discover`, plain and `-v`), with its C speedups left unbuilt.
UNITTEST_CASES = (
    (
        "simplejson-true-key",
        "simplejson-3.19.2",
        "simplejson/encoder.py",
        "        elif key is True:\n            key = 'true'",
        "        elif key is False:\n            key = 'true'",
        "simplejson/tests",
    ),
    (  # (one test a line of the Unicode test file: the failing ones named by their line)
        "idna-domain-length",
        "idna-3.7",
        "idna/core.py",
        "    if len(label) > (254 if trailing_dot else 253):",
        "    if len(label) > (253 if trailing_dot else 252):",
        "tests",
    ),
)
UNITTEST_MODES = (("-unittest", ()), ("-unittest-verbose", ("-v",)))
# (case, older release, newer release, source file in the newer, old, new): a release diff.
DIFF_CASES = (
    (
        "more-itertools-release",
        "more-itertools-10.1.0",
        "more-itertools-10.2.0",
        "more_itertools/more.py",
        "    if n == 0:\n        yield tuple()",
        "    if n == 1:\n        yield tuple()",
    ),
    ("toolz-release", "toolz-0.12.0", "toolz-0.12.1", "toolz/itertoolz.py", "    if N < 2:", "    if N <= 2:"),
    (
        "more-itertools-grouper",
        "more-itertools-10.1.0",
        "more-itertools-10.2.0",
        "more_itertools/recipes.py",
        "    if incomplete == 'fill':",
        "    if incomplete == 'full':",
    ),
    (
        "markupsafe-release",
        "MarkupSafe-2.1.4",
        "MarkupSafe-2.1.5",
        "src/markupsafe/__init__.py",
        "        if isinstance(num, int):\n            return self.__class__(super().__mul__(num))",
        "        if not isinstance(num, int):\n            return self.__class__(super().__mul__(num))",
    ),
    (
        "simplejson-release",
        "simplejson-3.19.1",
        "simplejson-3.19.2",
        "simplejson/encoder.py",
        "        elif key is True:\n            key = 'true'",
        "        elif key is False:\n            key = 'true'",
    ),
    (
        "packaging-release",
        "packaging-23.2",
        "packaging-24.0",
        "src/packaging/specifiers.py",
        "        if not prospective < spec:",
        "        if not prospective <= spec:",
    ),
    (
        "cachetools-release",
        "cachetools-5.3.2",
        "cachetools-5.3.3",
        "src/cachetools/__init__.py",
        "        if size > maxsize:",
        "        if size >= maxsize:",
    ),
    ("idna-release", "idna-3.6", "idna-3.7", "idna/core.py", "    if len(label) > 63:", "    if len(label) > 62:"),
)
# (case, C file, gcc's warning flags, [(old, new)]): faults a compiler reports.
COMPILER_CASES = (
    (
        "simplejson-speedups",
        "simplejson-3.19.2/simplejson/_speedups.c",
        ("-Wall",),
        (
            ("static PyObject *\nscanstring_unicode(", "static int\nscanstring_unicode("),
            ("    Py_ssize_t next = begin;", "    Py_ssize_t next = begun;"),
        ),
    ),
    # The same file with more warnings on: three errors among warnings, notes and carets.
    (
        "simplejson-speedups-warnings",
        "simplejson-3.19.2/simplejson/_speedups.c",
        ("-Wall", "-Wextra", "-Wconversion", "-Wshadow"),
        (
            (
                "    Py_ssize_t begin = end - 1;\n    Py_ssize_t next = begin;\n    PY2_UNUSED int kind",
                "    Py_ssize_t begin = end - 1;\n    Py_ssize_t next = begun;\n    PY2_UNUSED int kind",
            ),
            ("    Py_ssize_t next_end = -1;", "    Py_ssize_t next_end = -1\n"),
        ),
    ),
    # Another project's C file: a missing `;` inside a macro's expansion, an undeclared name.
    *(
        (
            f"markupsafe-speedups{suffix}",
            "MarkupSafe-2.1.5/src/markupsafe/_speedups.c",
            flags,
            (
                ("\toutp = PyUnicode_1BYTE_DATA(out);\n", "\toutp = PyUnicode_1BYTE_DATA(out)\n"),
                ("PyUnicode_GET_LENGTH(in) + delta, 65535);", "PyUnicode_GET_LENGTH(in) + delt, 65535);"),
            ),
        )
        for suffix, flags in (("", ()), ("-warnings", ("-Wall", "-Wextra", "-Wconversion", "-Wshadow")))
    ),
)

# (case, project folder, [(file, old, new)]): faults a type checker and a linter report, each
# keeping the line count (so the pristine run's other lines stay as they are).
REPORT_CASES = (
    (
        "toolz-report",
        "toolz-0.12.1",
        (
            ("toolz/dicttoolz.py", "    result = factory()\n", "    result = factroy()\n"),
            ("toolz/itertoolz.py", "        return len(seq)\n", "        return len(seq, 1)\n"),
            ("toolz/itertoolz.py", "    return sum(1 for i in seq)\n", "    return sum(1 for i in sequence)\n"),
            ("toolz/functoolz.py", "qualname = '.'.join(attrs)", "qualname = '.'.joins(attrs)"),
        ),
    ),
    (
        "cachetools-report",
        "cachetools-5.3.3",
        (
            ("src/cachetools/__init__.py", "        return len(self.__data)\n", "        return len(self.__data, 1)\n"),
            (
                "src/cachetools/keys.py",
                "    return hashkey(*args, **kwargs)\n",
                "    return hashkey(*args, **kwargz)\n",
            ),
            ("src/cachetools/__init__.py", "        self.__maxsize = maxsize\n", "        self.__maxsize = maxsise\n"),
            (
                "src/cachetools/keys.py",
                "    key = hashkey(*args, **kwargs)\n",
                "    key = hashkey(*args, **kwargs).strip()\n",
            ),
        ),
    ),
)
MYPY_MODES = (("", ()), ("-pretty", ("--pretty", "--show-column-numbers")))


def _run(
    args: list[str], cwd: Path | None = None, timeout: int = 900, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def _flip(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise SystemExit(f"needles: the fault's text is not in {path}")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _faulted(work: Path, case: str, project: str, source: str, old: str, new: str) -> Path:
    """A copy of the project's tree for the case, with its fault."""
    tree = work / f"{case}-tree"
    shutil.copytree(work / project, tree)
    _flip(tree / source, old, new)
    return tree


def build(
    out: Path, cache: Path, semver: Path | None, cloudevents: Path | None, only: frozenset[str] | None = None
) -> None:
    """Every case's artifact and needles (see the module docstring); with `only`, the cases
    named there alone (packaging's 26,852 tests take many minutes a mode)."""
    out.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    for spec in SDISTS:
        name, version = spec.split("==")
        wanted = f"{name}-{version}.tar.gz".replace("-", "_").lower()
        if not any(p.name.replace("-", "_").lower() == wanted for p in cache.glob("*.tar.gz")):
            _run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "-q",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    spec,
                    "-d",
                    str(cache),
                ]
            )
    _run([sys.executable, "-m", "pip", "install", "-q", *REPORT_PLUGIN])
    with tempfile.TemporaryDirectory(prefix="needles-") as tmp:
        work = Path(tmp)
        for archive in cache.glob("*.tar.gz"):
            with tarfile.open(archive) as tar:
                tar.extractall(work, filter="data")
        _pytest_cases(out, work, only)
        _unittest_cases(out, work, only)
        for case, older, newer, source, old, new in DIFF_CASES:
            if only is not None and case not in only:
                continue
            repo = work / f"{case}-repo"
            shutil.copytree(work / older, repo)
            git = ["git", "-C", str(repo), "-c", "user.name=needles", "-c", "user.email=needles@example.com"]
            _run([*git, "init", "-q"])
            _run([*git, "add", "-A"])
            _run([*git, "commit", "-q", "-m", older])
            for path in list(repo.iterdir()):
                if path.name != ".git":
                    shutil.rmtree(path) if path.is_dir() else path.unlink()
            shutil.copytree(work / newer, repo, dirs_exist_ok=True)
            _flip(repo / source, old, new)
            _run([*git, "add", "-A"])
            _run([*git, "commit", "-q", "-m", newer])
            diff = _run([*git, "diff", "--no-color", "--no-ext-diff", "-M", "HEAD~1", "HEAD"]).stdout
            needles = ["+" + line for line in new.splitlines() if line not in old.splitlines()]
            _write(out, f"{case}.diff", diff, needles, "diff")
            _history(out, repo, git, case, newer, needles)
        for case, source, flags, faults in COMPILER_CASES:
            if only is not None and case not in only:
                continue
            path = work / source
            pristine = path.read_text(encoding="utf-8")
            for old, new in faults:
                _flip(path, old, new)
            includes = _run(["python3-config", "--includes"]).stdout.split()
            done = _run(["gcc", "-fsyntax-only", *flags, *includes, path.name], cwd=path.parent)
            path.write_text(pristine, encoding="utf-8")
            _write(
                out,
                f"{case}.log",
                done.stderr,
                [line for line in done.stderr.splitlines() if ": error: " in line],
                "compiler",
            )
        for case, project, faults in REPORT_CASES:
            if only is not None and case not in only:
                continue
            _reports(out, work / project, case, faults)
    for repo, (commit, paths) in ((semver, SEMVER), (cloudevents, CLOUDEVENTS)):
        if repo is None or only is not None:
            continue
        for path in paths:
            text = _run(["git", "-C", str(repo), "show", f"{commit}:{path}"]).stdout
            name = repo.name.split("+")[-1] if "+" in repo.name else repo.name
            _write(out, f"{name}-{path.replace('/', '-')}", text, markdown_needles(text), "markdown")


def actions_log(log: str) -> str:
    """A run's output as a GitHub Actions job log holds it: its step's group, each line after
    the runner's timestamp (a fixed start, a tenth of a second a line), the step's error."""
    lines = ["##[group]Run python -m pytest", *log.splitlines(), "##[error]Process completed with exit code 1."]
    start = 1_795_000_000.0  # (2026-11-18: a fixed clock, so a build is the same twice)
    stamp = [
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + k // 10)) + f".{k % 10}000000Z"
        for k in range(len(lines))
    ]
    return "".join(f"{at} {line}\n" for at, line in zip(stamp, lines))


def _pytest_cases(out: Path, work: Path, only: frozenset[str] | None) -> None:
    """The pytest cases: each suite with its fault, run in every mode (pytest-log), with its
    JSON report (pytest-json) and JUnit XML reports (junit)."""
    for case, project, source, old, new, tests in PYTEST_CASES:
        if only is not None and case not in only:
            continue
        tree = _faulted(work, case, project, source, old, new)
        report = work / f"{case}.json"
        # A src layout's package is imported from the tree, not from an installed copy.
        env = dict(os.environ, PYTHONPATH=str(tree / "src")) if (tree / "src").is_dir() else None
        pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
        for suffix, flags in PYTEST_MODES:
            json_report = ["--json-report", f"--json-report-file={report}"] if suffix == "-verbose" else []
            family = JUNIT_RUNS.get(suffix)
            xml = work / f"{case}{suffix}-junit.xml"
            junit = [f"--junitxml={xml}", "-o", f"junit_family={family}"] if family else []
            log = _run([*pytest, *flags, *json_report, *junit, *tests.split()], cwd=tree, env=env).stdout
            _write(out, f"{case}{suffix}.log", log, pytest_log_needles(log), "pytest-log")
            if suffix == "":  # (the default run as a GitHub Actions job log shows it)
                _write(out, f"{case}-actions.log", actions_log(log), pytest_log_needles(log), "pytest-log")
            if family and xml.exists():
                raw = xml.read_text(encoding="utf-8")
                _write(out, f"{case}-{family}.xml", raw, junit_needles(raw), "junit")
        raw = report.read_text(encoding="utf-8")
        _write(out, f"{case}-report.json", raw, pytest_json_needles(raw), "pytest-json")
        if "more-itertools" in project:  # (unittest suites: two more runners' reports)
            _unittest_reports(out, tree, case, tests)


def _unittest_cases(out: Path, work: Path, only: frozenset[str] | None) -> None:
    """The unittest cases: each suite with its fault, run by unittest in every mode (unittest-log)."""
    for case, project, source, old, new, tests in UNITTEST_CASES:
        if only is not None and case not in only:
            continue
        tree = _faulted(work, case, project, source, old, new)
        for suffix, flags in UNITTEST_MODES:
            done = _run([sys.executable, "-m", "unittest", "discover", *flags, "-s", tests, "-t", "."], cwd=tree)
            log = done.stderr  # (unittest writes its report to standard error)
            _write(out, f"{case}{suffix}.log", log, unittest_log_needles(log), "unittest-log")


def _unittest_reports(out: Path, tree: Path, case: str, tests: str) -> None:
    """The same suite run by xmlrunner (unittest-xml-reporting), by nose2's junitxml plugin and
    by green (`--junit-report`): three more dialects of JUnit XML (xmlrunner's suite per class,
    nose2's one suite, green's suite per test module)."""
    folder = tree / "xmlrunner-out"
    _run([sys.executable, "-m", "xmlrunner", "discover", "-s", tests, "-t", ".", "-o", str(folder)], cwd=tree)
    for k, path in enumerate(sorted(folder.glob("*.xml"))):
        raw = path.read_text(encoding="utf-8")
        if "<failure" in raw or "<error" in raw:
            _write(out, f"{case}-xmlrunner-{k}.xml", raw, junit_needles(raw), "junit")
    xml = tree / "nose2-junit.xml"
    nose2 = [sys.executable, "-m", "nose2", "--plugin", "nose2.plugins.junitxml", "--junit-xml"]
    _run([*nose2, "--junit-xml-path", str(xml), "-s", ".", tests], cwd=tree)
    if xml.exists():
        raw = xml.read_text(encoding="utf-8")
        _write(out, f"{case}-nose2.xml", raw, junit_needles(raw), "junit")
    xml = tree / "green-junit.xml"
    _run([sys.executable, "-m", "green", "--junit-report", str(xml), tests], cwd=tree)
    if xml.exists():
        raw = xml.read_text(encoding="utf-8")
        _write(out, f"{case}-green.xml", raw, junit_needles(raw), "junit")


def _history(out: Path, repo: Path, git: list[str], case: str, newer: str, needles: list[str]) -> None:
    """The release's last commit made again as three (its changed files in path order, a third
    each), and their `git log -p`: the needles are the flipped line and each commit's subject."""
    changed = sorted(_run([*git, "diff", "--name-only", "HEAD~1", "HEAD"]).stdout.split())
    _run([*git, "reset", "-q", "--soft", "HEAD~1"])
    _run([*git, "reset", "-q"])
    subjects = []
    for k in range(3):
        part = changed[k * len(changed) // 3 : (k + 1) * len(changed) // 3]
        if not part:
            continue
        subject = f"{newer}, part {k + 1} of 3: {part[0]} and {len(part) - 1} more files"
        _run([*git, "add", "-A", "--", *part])
        _run([*git, "commit", "-q", "-m", subject])
        subjects.append(subject)
    log = _run([*git, "log", "-p", "--no-color", "--no-ext-diff", "-M", f"-{len(subjects)}"]).stdout
    _write(out, f"{case}-history.diff", log, [*needles, *subjects], "history")


def _reports(out: Path, tree: Path, case: str, faults: tuple[tuple[str, str, str], ...]) -> None:
    """mypy's and ruff's reports of the tree with the faults; the needles are what the faults add."""
    env = dict(os.environ, MYPY_FORCE_TERMINAL_WIDTH="120", NO_COLOR="1")
    package = faults[0][0].split("/")[0]

    def mypy(flags: tuple[str, ...]) -> str:
        args = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--no-error-summary", *flags, package]
        return _run([*args, "--cache-dir", os.devnull], cwd=tree, env=env).stdout

    def ruff(form: str) -> str:
        args = [sys.executable, "-m", "ruff", "check", "--select", "ALL", "--no-cache", "--isolated"]
        return _run(
            [*args, "--output-format", form, "--exclude", f"{package}/tests", package], cwd=tree, env=env
        ).stdout

    def flake8() -> str:
        args = [
            sys.executable,
            "-m",
            "flake8",
            "--format=sarif",
            "--max-line-length=79",
            "--exclude",
            f"{package}/tests",
        ]
        return _run([*args, package], cwd=tree, env=env).stdout

    forms = ("concise", "full", "sarif")
    before = {f"mypy{s}": mypy(flags) for s, flags in MYPY_MODES} | {f"ruff-{f}": ruff(f) for f in forms}
    before["flake8-sarif"] = flake8()
    for path, old, new in faults:
        _flip(tree / path, old, new)
    for suffix, flags in MYPY_MODES:
        log, was = mypy(flags), set(before[f"mypy{suffix}"].splitlines())
        needles = [line for line in log.splitlines() if ": error: " in line and line not in was]
        _write(out, f"{case}-mypy{suffix}.log", log, needles, "typecheck")
    concise, was = ruff("concise"), set(before["ruff-concise"].splitlines())
    added = [line for line in concise.splitlines() if re.match(r"^\S+:\d+:\d+: ", line) and line not in was]
    _write(out, f"{case}-ruff.log", concise, added, "lint")
    full = ruff("full")
    needles = []
    for line in added:  # `path:line:col: CODE [*] message` -> `CODE [*] message` and `--> path:line:col`
        where, _, said = line.partition(": ")
        needles += [said, f"--> {where}"]
    _write(out, f"{case}-ruff-full.log", full, needles, "lint")
    for tool, sarif in (("ruff", ruff("sarif")), ("flake8", flake8())):
        was = sarif_needles(before[f"{tool}-sarif" if tool == "ruff" else "flake8-sarif"])
        _write(out, f"{case}-{tool}.sarif", sarif, [n for n in sarif_needles(sarif) if n not in was], "sarif")


def _write(out: Path, name: str, text: str, needles: list[str], family: str) -> None:
    (out / name).write_text(text, encoding="utf-8")
    (out / f"{name}.needles.json").write_text(
        json.dumps({"family": family, "needles": list(dict.fromkeys(needles))}, indent=1), encoding="utf-8"
    )
    print(f"needles: {name}: {len(set(needles))} needles ({family})")


# --- fixed rules: the facts a reviewer must see ------------------------------------------------

_FAILED = re.compile(r"^FAILED (\S+)")
_LOCATION = re.compile(r"^(\S+\.py:\d+): (\w+(?:Error|Exception|Failure|Exit))\b")
_SUMMARY = re.compile(r"^=+ (.*\b(?:failed|passed|error)\b.*) in [\d.]+s.*=+$")


def pytest_log_needles(log: str) -> list[str]:
    """Failing test ids (from the short summary), each failure's first `E ` line and its
    `path:line: Error` location, and the summary line."""
    lines = log.splitlines()
    needles = [m.group(1) for line in lines if (m := _FAILED.match(line))]
    in_failure, first_e = False, False
    for line in lines:
        if re.match(r"^_{3,} .* _{3,}$", line):
            in_failure, first_e = True, False
        elif in_failure and line.startswith("E ") and not first_e:
            needles.append(line.rstrip())
            first_e = True
        elif in_failure and (m := _LOCATION.match(line)):
            needles.append(m.group(0))
    needles += [m.group(1) for line in lines if (m := _SUMMARY.match(line))]
    return needles


_UNITTEST_HEADER = re.compile(r"^(?:FAIL|ERROR): \S+ \(\S+\)")
_FRAME = re.compile(r'^\s+File "[^"]+", line \d+, in \S+')


def unittest_log_needles(log: str) -> list[str]:
    """Each failing test's header line (`FAIL: test_x (pkg.mod.Class.test_x)`), each traceback's
    last frame and its exception's first line, and the verdict (`FAILED (failures=2, …)`)."""
    lines = log.splitlines()
    needles = [line.rstrip() for line in lines if _UNITTEST_HEADER.match(line)]
    frame = None
    in_traceback = False
    for line in lines:
        if line.startswith("Traceback (most recent call last):"):
            in_traceback, frame = True, None
        elif in_traceback and _FRAME.match(line):
            frame = line.strip()
        elif in_traceback and line and not line[0].isspace():  # the exception: the traceback's end
            needles += [frame, line.rstrip()] if frame else [line.rstrip()]
            in_traceback = False
    needles += [line.rstrip() for line in lines if line.startswith("FAILED (")]
    return needles


_FAILURE_MESSAGE = re.compile(r'<(?:failure|error)\b[^>]*?\bmessage="([^"]*)"|<(?:failure|error)\b')


def junit_needles(raw: str) -> list[str]:
    """Each failing or erroring testcase's `name`, and the first line of its failure's `message`
    as the file writes it (a parser turns the line breaks inside an attribute into spaces), else
    of its text."""
    import html
    import xml.etree.ElementTree as ElementTree  # (our own test runner's report: trusted here)

    root = ElementTree.fromstring(raw)
    written = [html.unescape(m.group(1)) if m.group(1) is not None else None for m in _FAILURE_MESSAGE.finditer(raw)]
    needles = []
    for k, failed in enumerate(e for e in root.iter() if e.tag in ("failure", "error")):  # (document order)
        message = written[k] if k < len(written) and written[k] else (failed.text or "")
        needles.append(next((line.strip() for line in message.splitlines() if line.strip()), ""))
    failing = [c for c in root.iter("testcase") if c.find("failure") is not None or c.find("error") is not None]
    return [n for n in [*(c.get("name", "") for c in failing), *needles] if n]


def sarif_needles(raw: str) -> list[str]:
    """Each result's message and its place (`path:line`, the uri without a `file://` scheme)."""
    try:
        log = json.loads(raw)
    except ValueError:
        return []
    needles = []
    for run in log.get("runs", []):
        for result in run.get("results", []):
            message = " ".join(((result.get("message") or {}).get("text") or "").split())
            needles.append(message)
            for location in result.get("locations", [])[:1]:
                physical = location.get("physicalLocation", {})
                uri = physical.get("artifactLocation", {}).get("uri", "").removeprefix("file://")
                line = physical.get("region", {}).get("startLine")
                if uri and line is not None:
                    needles.append(f"{uri}:{line}")
    return [n for n in needles if n]


def pytest_json_needles(raw: str) -> list[str]:
    """Each failing test's nodeid and the first line of its crash message, as JSON writes them."""
    report = json.loads(raw)
    needles = []
    for test in report.get("tests", []):
        if test.get("outcome") not in ("failed", "error"):
            continue
        needles.append(json.dumps(test["nodeid"]))
        for stage in ("setup", "call", "teardown"):
            crash = (test.get(stage) or {}).get("crash") or {}
            if crash.get("message"):
                first = crash["message"].splitlines()[0][:120]
                needles.append(json.dumps(first)[1:-1])
                break
    return needles


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`\"(])")
_RFC2119 = re.compile(r"\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|REQUIRED|SHOULD(?: NOT)?|RECOMMENDED)\b")


def markdown_needles(text: str) -> list[str]:
    """Every sentence with an upper-case RFC 2119 word (outside code blocks), as written."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    needles = []
    for paragraph in re.split(r"\n\s*\n", prose):
        flat = " ".join(line.strip() for line in paragraph.splitlines())
        for sentence in _SENTENCE.split(flat):
            if _RFC2119.search(sentence):
                needles.append(sentence.strip()[:160])
    return needles


# --- measure -------------------------------------------------------------------------------------


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _ceiling(needles: list[str], budget: int, count: Callable[[str], int]) -> int:
    """The most needles that fit the budget with nothing else shown (see the docstring)."""
    from ctxguard.engine.tiers import marker

    room, kept = budget - count(marker(10**6)), 0
    for cost in sorted(count(needle + "\n") for needle in needles):
        if cost > room:
            break
        room, kept = room - cost, kept + 1
    return kept


def _gapped(text: str, needles: list[str], budget: int, count: Callable[[str], int]) -> int:
    """The most needles a cut showing gap lines can keep, estimated (see the docstring)."""
    from ctxguard.engine.tiers import marker

    gap = count("... (lines 1-2 omitted)\n")
    lines = [_squeeze(line) for line in text.splitlines()]
    costs: dict[int, list[int]] = defaultdict(list)  # raw line -> its needles' own tokens
    for at, needle in enumerate(needles):
        squeezed = _squeeze(needle)
        line = next((i for i, raw in enumerate(lines) if squeezed in raw), -1 - at)  # (none: alone)
        costs[line].append(count(needle + "\n"))
    room, shown = budget - count(marker(10**6)), set()
    while True:
        best: tuple[float, int, int] | None = None
        for line, own in costs.items():
            if line in shown:
                continue
            joins = (line - 1 in shown) + (line + 1 in shown)
            cost = sum(own) + (gap if joins == 0 and line != 0 else -gap if joins == 2 else 0)
            if cost <= room and (best is None or cost / len(own) < best[0]):
                best = (cost / len(own), cost, line)
        if best is None:
            return sum(len(costs[line]) for line in shown)
        room -= best[1]
        shown.add(best[2])


def measure(cases: Path, ratios: list[float], show: int, ceiling: bool = False) -> None:
    """Needle recall per family and ratio, for ctxguard, a head cut and a tail cut."""
    from ctxguard.api import compress_text
    from ctxguard.tokens.load import get_tokenizer, tiktoken_encoding

    tokenizer = get_tokenizer("o200k_base")
    encoding = tiktoken_encoding("o200k_base")  # (tiktoken's own, for the head and tail cuts)
    found: dict[tuple[str, float, str], list[int]] = defaultdict(lambda: [0, 0])
    misses: dict[tuple[str, float], list[str]] = defaultdict(list)
    for meta in sorted(cases.glob("*.needles.json")):
        artifact = meta.with_name(meta.name[: -len(".needles.json")])
        family, needles = (lambda d: (d["family"], d["needles"]))(json.loads(meta.read_text()))
        text = artifact.read_text(encoding="utf-8")
        tokens = encoding.encode_ordinary(text)
        for ratio in ratios:
            budget = max(64, int(len(tokens) * ratio))
            contents = {
                "ctxguard": compress_text(text, budget, name=artifact.name)["content"],
                "head": encoding.decode(tokens[:budget]),
                "tail": encoding.decode(tokens[-budget:]),
            }
            if ceiling:
                cell = found[(family, ratio, "ceiling")]
                cell[0] += _ceiling(needles, budget, tokenizer.count)
                cell[1] += len(needles)
                cell = found[(family, ratio, "gapped")]
                cell[0] += _gapped(text, needles, budget, tokenizer.count)
                cell[1] += len(needles)
            for method, content in contents.items():
                flat = _squeeze(content)
                for needle in needles:
                    hit = _squeeze(needle) in flat
                    cell = found[(family, ratio, method)]
                    cell[0] += hit
                    cell[1] += 1
                    if method == "ctxguard" and not hit:
                        misses[(family, ratio)].append(f"{artifact.name}: {needle[:110]}")
    families = sorted({key[0] for key in found})
    methods = ("ctxguard", "head", "tail", *(("ceiling", "gapped") if ceiling else ()))
    print(f"{'family':<12} {'ratio':>5}  " + " ".join(f"{m:>15}" for m in methods))
    totals: dict[tuple[float, str], list[int]] = defaultdict(lambda: [0, 0])
    for family in families:
        for ratio in ratios:
            cells = []
            for method in methods:
                hit, total = found[(family, ratio, method)]
                totals[(ratio, method)][0] += hit
                totals[(ratio, method)][1] += total
                cells.append(f"{hit:>4}/{total:<4} {hit / max(1, total):5.0%}")
            print(f"{family:<12} {ratio:>5}  " + " ".join(f"{c:>15}" for c in cells))
            for line in misses[(family, ratio)][:show]:
                print(f"      missed: {line}")
    for ratio in ratios:
        cells = [f"{h:>4}/{t:<4} {h / max(1, t):5.0%}" for h, t in (totals[(ratio, m)] for m in methods)]
        print(f"{'all':<12} {ratio:>5}  " + " ".join(f"{c:>15}" for c in cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "ctxg-needles-cache")
    b.add_argument("--semver", type=Path, help="a checkout of github.com/semver/semver")
    b.add_argument("--cloudevents", type=Path, help="a checkout of github.com/cloudevents/spec")
    b.add_argument("--only", help="build only these cases (comma-separated: mit-empty-window,toolz-report …)")
    m = sub.add_parser("measure")
    m.add_argument("--cases", type=Path, required=True)
    m.add_argument("--ratios", default="0.5,0.2,0.1,0.05,0.02,0.01")
    m.add_argument("--show", type=int, default=0, help="print this many of ctxguard's misses per cell")
    m.add_argument("--ceiling", action="store_true", help="also print the most any cut could keep (see above)")
    args = parser.parse_args()
    if args.action == "build":
        only = frozenset(args.only.split(",")) if args.only else None
        build(args.out, args.cache, args.semver, args.cloudevents, only)
    else:
        measure(args.cases, [float(r) for r in args.ratios.split(",")], args.show, args.ceiling)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
