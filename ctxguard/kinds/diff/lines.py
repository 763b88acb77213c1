"""A diff's lines one at a time: what each is and how early a cut takes it (for the plan and
the streaming pass alike), and what marks an error line or a file's role."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Final

from ctxguard.generated import GENERATED, is_excluded
from ctxguard.git.paths import header_path
from ctxguard.kinds.definitions import is_definition, language

ERROR_LINE = re.compile(
    r"""\b(?:raise|throw|panic!?|abort|die|bail!|unreachable!|unimplemented!|todo!
    |errors\.New|fmt\.Errorf|Errorf|Err\(|new\s+\w*(?:Error|Exception)
    |(?:log|logger|logging|LOG|LOGGER|console|slog|klog|glog)\.(?:error|exception|critical|fatal|warn|warning|Error|Fatal|Fatalf|Errorf|Warn|Warning)
    |perror|fprintf\(\s*stderr|sys\.exit|process\.exit|os\.Exit)\b""",
    re.X,
)


# Every branch of ERROR_LINE holds one of these: a line with none of them skips the pattern,
# whose leading \b defeats the regex engine's quick scan for a first character. (No hint holds
# a line break: a diff's changed lines are searched for them at once, see ctxguard.literals.)
MAY_ERR_WORDS: Final = (
    *("raise", "throw", "panic", "abort", "die", "bail!", "unreachable!", "unimplemented!", "todo!", "Err"),
    *("rror", "xception", "stderr", "exit", "Exit", "arn", "atal", "ritical"),
)
MAY_ERR = re.compile("|".join(map(re.escape, MAY_ERR_WORDS)))


@functools.lru_cache(maxsize=1 << 16)
def is_error_line(line: str) -> bool:
    """A line that raises, throws, panics or logs an error (remembered, like is_definition:
    the handler, the probes and the cut ask about the same lines)."""
    return MAY_ERR.search(line) is not None and ERROR_LINE.search(line) is not None


# What a changed (+/-) line says, as bits (the probes' reading, which the plan reads too).
DEFINES = 4  # declares something (a function, class, struct …)
ERROR = 16  # an added line that raises, throws, panics or logs an error


DOCS = re.compile(r"(?:^|/)docs?/|\.(?:md|rst|txt|adoc)$|(?:^|/)(?:CHANGE|HISTORY|NEWS|RELEASE)[^/]*$", re.I)
# A file of prose (a document, a changelog): its lines are words, not code that declares or
# raises (a changelog's `- Do not raise an error for undefined filters`, `of checking whether a
# value has changed (or`, which the forms of a definition in no known language would match).
_PROSE = re.compile(
    r"(?<!cmakelists)\.(?:md|markdown|rst|txt|adoc)$|(?:^|/)(?:CHANGE|HISTORY|NEWS|RELEASE)[^/.]*$", re.I
)
PROSE: Final = "prose"  # the key under which what a prose file's changed lines say is kept (DiffDoc.said)


@functools.lru_cache(maxsize=1 << 12)
def is_prose(path: str) -> bool:
    """A file of prose: a document or a changelog, in no language of code (see definitions'
    `language`)."""
    return language(path) is None and _PROSE.search(path) is not None


def said_key(path: str) -> str | None:
    """Under which key what a file's changed lines say is kept: its language, or PROSE."""
    return PROSE if is_prose(path) else language(path)


TESTS_DOCS = re.compile(r"(?:^|/)(?:tests?|spec|__tests__|docs?)/|(?:^|/)test_[^/]*$|_test\.\w+$|\.(?:md|rst|txt)$")


# A commit in `git log -p` (`commit <sha>`) or `git format-patch` (`From <sha> <date>`): its line
# and its subject (the message's first line, or `Subject:`) say what the change means to do, so a
# cut takes them before any file's header.
COMMIT_LINE = re.compile(r"^(?:commit [0-9a-f]{7,64}\b|From [0-9a-f]{40} )")
COMMIT: Final = 0.97  # after a flipped condition (0.95), before the changed definitions (1)

# The reader's levels (lower is taken first), each raised by its file's offset (file_offset).
DEFINITION: Final = 1.0  # an added or removed line that declares something, or raises or logs an error
FILE: Final = 1.6  # a file's `diff --git` line
HEADER: Final = 1.7  # a rename's, a mode's, a new or deleted file's line, `Binary files … differ`
HUNK: Final = 2.6  # a hunk's `@@` line
PATH_AGAIN: Final = 2.8  # `---` and `+++`: they repeat the path
CHANGE: Final = 4.0  # another changed line
CONTEXT_DEFINITION: Final = 4.5  # an unchanged line that declares something
PREAMBLE: Final = 5.0  # a commit's author, date and message lines before its first file (no offset)
INDEX: Final = 6.0  # an `index` line
CONTEXT: Final = 7.0  # another unchanged line (no offset)
# How far a file's lines sink: lockfiles and generated files, docs and changelogs, tests, code.
GENERATED_OFFSET: Final = 3.0
DOCS_OFFSET: Final = 1.5
TESTS_OFFSET: Final = 1.0
_FULL_SHA = re.compile(r"^(commit |From )([0-9a-f]{12})[0-9a-f]{28,52}\b")


def short_commit(line: str) -> str:
    """A commit's line as a cut shows it: its id abbreviated to 12 hex digits, as `git log
    --abbrev=12` does (still a name git resolves; the full id is ~25 tokens, the subject's
    cost again)."""
    return _FULL_SHA.sub(r"\1\2", line, count=1) if line.startswith(("commit ", "From ")) else line


class DiffReader:
    """Reads a diff's lines in order and says what each is and how early a cut should take it,
    for the plan and the streaming pass alike.

    Kinds and levels (the table above; lower is taken first; each is raised by file_offset of
    the file): "definition" and "error" (added or removed lines that declare something or
    raise/log an error) DEFINITION; "file" (`diff --git`) FILE; "header" (renames, modes,
    new/deleted, binary) HEADER, `---`/`+++` PATH_AGAIN, `index` INDEX; "hunk" HUNK; "change"
    (other changed lines) CHANGE; "context" CONTEXT_DEFINITION if it declares something, else
    CONTEXT. A commit's line (`commit <sha>` in `git log -p`, `From <sha>` in `git
    format-patch`) is "commit" and its subject "subject", at COMMIT (the subject first, which is
    never shown without its commit's line); the other lines before a commit's first file (its
    author, date, message) are "header" at PREAMBLE. `index` is
    the line's position within its file, the rank within a level.
    """

    def __init__(
        self, context_definitions: bool = True, said: Mapping[str | None, Mapping[str, int]] | None = None
    ) -> None:
        self.context_definitions = context_definitions  # a stream skips the regex on context
        # Changed lines read already, per language: their bits (DEFINES, ERROR if added).
        self.said = said
        self._said: Mapping[str, int] = {}  # … in the current file's language
        self.path = ""
        self.language: str | None = None
        self.prose = False  # the current file is prose: no line of it declares or raises (is_prose)
        self.offset = 0.0
        self.in_hunk = False
        self.index = 0
        self.subject = False  # the next message line is a commit's subject

    def read(self, line: str) -> tuple[str, float]:
        self.index += 1
        if self.in_hunk and self.path and line[:1] in BODY:  # (most lines: none of the headers below)
            return self.body(line)
        if line.startswith(("commit ", "From ")) and COMMIT_LINE.match(line):
            self.path, self.language, self.offset, self.in_hunk, self.index = "", None, 0.0, False, 0
            self.subject, self.prose = True, False
            return "commit", COMMIT + 0.01  # (after its subject, which brings it)
        if (
            self.subject
            and not self.path
            and (line.startswith("Subject: ") or line.startswith("    ") and line.strip())
        ):
            self.subject = False
            return "subject", COMMIT
        if line.startswith(("diff --git ", "diff --cc ")):
            self.path = header_path(line) or line.rstrip("\r\n").split()[-1]
            self.offset = file_offset(self.path)
            self.language = language(self.path)
            self.prose = is_prose(self.path)
            self._said = self.said.get(said_key(self.path), {}) if self.said is not None else {}
            self.in_hunk, self.index = False, 0
            return "file", FILE + self.offset
        if line.startswith("@@"):
            self.in_hunk = True
            return "hunk", HUNK + self.offset
        if not self.in_hunk:
            if not self.path:
                return "header", PREAMBLE
            if line.startswith("index "):
                return "header", INDEX + self.offset
            if line.startswith(("--- ", "+++ ")):  # they repeat the path
                return "header", PATH_AGAIN + self.offset
            return "header", HEADER + self.offset
        return self.body(line)

    @property
    def in_body(self) -> bool:
        """The next line that starts with `+`, `-` or a space is a hunk's body line (`body`)."""
        return self.in_hunk and bool(self.path)

    def body(self, line: str) -> tuple[str, float]:
        """A line of a hunk's body (what `read` says of a line starting with `+`, `-` or a space
        while in_body, without its tests for the headers or a count in `index`, which only the
        stream asks for): a changed line, a definition or error line, a context line."""
        sign = line[:1]
        if sign == "+" or sign == "-":
            bits = self._said.get(line)
            if bits is not None and sign == "+":  # (most: read by the probes, no text after the sign cut)
                defines, errs = bits & DEFINES, bits & ERROR
            else:  # (the probes do not ask whether a removed line raises)
                body = line[1:]
                if self.prose:  # (a document's or a changelog's words: no code)
                    return "change", CHANGE + self.offset
                defines = bits & DEFINES if bits is not None else is_definition(body, self.language)
                errs = not defines and is_error_line(body)
            if defines:
                return "definition", DEFINITION + self.offset
            if errs:
                return "error", DEFINITION + self.offset
            return "change", CHANGE + self.offset
        if self.context_definitions and not self.prose and is_definition(line[1:], self.language):
            return "context", CONTEXT_DEFINITION + self.offset
        return "context", CONTEXT


BODY = frozenset("+- ")  # (a hunk's body line starts with one: no header line does)


@functools.lru_cache(maxsize=1 << 12)
def file_offset(path: str) -> float:
    """How far a diff file's lines sink in a cut: lockfiles and generated files 3, docs and
    changelogs 1.5, tests 1, code 0."""
    if is_excluded(path, GENERATED):
        return GENERATED_OFFSET
    if DOCS.search(path):
        return DOCS_OFFSET
    return TESTS_OFFSET if TESTS_DOCS.search(path) else 0.0


_QUOTED = re.compile(r"""(?:f|b|r)?("(?:[^"\\]|\\.){3,}"|'(?:[^'\\]|\\.){3,}'|`[^`]{3,}`)""")


def error_message(line: str) -> str:
    """The message of an error line: its first string literal, else the whole line stripped."""
    match = _QUOTED.search(line)
    return match.group(1)[1:-1] if match else line.strip()
