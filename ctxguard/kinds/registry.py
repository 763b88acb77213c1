"""The explicit registry of artifact kinds (see ctxguard.kinds.base.Kind), outside the kinds as
pre-commit's all_languages.py sits outside its languages.

Each kind reads an artifact's text once into a document of its own (diff, json, log, markdown,
text, junit, sarif), and answers the plan and the probes from it. A kind's module is imported
when the kind is first asked for (`KINDS[name]`): the hook's staged diff needs one kind, and
the others' imports cost it a twentieth of its time. What tells a kind by a file's name is
therefore written here, beside where each kind's module is (tests hold it equal to the kinds').
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from ctxguard.kinds.base import Kind, KindOf, Probe
from ctxguard.options import KindName

_MODULES: dict[KindName, str] = {
    "diff": "ctxguard.kinds.diff",
    "json": "ctxguard.kinds.json",
    "log": "ctxguard.kinds.log",
    "markdown": "ctxguard.kinds.markdown",
    "text": "ctxguard.kinds.text",
    "junit": "ctxguard.kinds.junit",
    "sarif": "ctxguard.kinds.sarif",
}
# Each kind's file names (its KIND's `suffixes`), and the other kinds' suffixes its content is
# told under first (its `within`: a SARIF log is a `.json` file).
SUFFIXES: dict[KindName, tuple[str, ...]] = {
    "diff": (".diff", ".patch"),
    "json": (".json", ".jsonl", ".ndjson", ".geojson"),
    "log": (".log", ".out"),
    "markdown": (".md", ".markdown", ".mdx"),
    "sarif": (".sarif",),
}
WITHIN: dict[KindName, tuple[str, ...]] = {"junit": (".xml",), "sarif": (".json",)}


class _Kinds(Mapping[KindName, KindOf]):
    """The kinds by name, each imported when first asked for."""

    def __init__(self) -> None:
        self._found: dict[str, KindOf] = {}

    def __getitem__(self, name: str) -> KindOf:
        found = self._found.get(name)
        if found is None:
            if name not in _MODULES:
                raise KeyError(name)
            found = self._found[name] = importlib.import_module(_MODULES[name]).KIND
        return found

    def __iter__(self) -> Iterator[KindName]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)

    def __contains__(self, name: object) -> bool:
        return name in _MODULES


KINDS: Mapping[KindName, KindOf] = _Kinds()
# The order in which a text's content is sniffed when its name does not tell (the first that
# says yes; text when none does): a diff or JSON is told surely (a SARIF log before the JSON it
# is), a log's lines only by share.
SNIFFED: tuple[KindName, ...] = ("diff", "sarif", "json", "junit", "markdown", "log")
FALLBACK: KindName = "text"

__all__ = ["KINDS", "Kind", "KindName", "Probe"]
