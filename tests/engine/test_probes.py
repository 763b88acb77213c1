"""Probes: what is extracted from each type, and how kept/missed is decided."""

from __future__ import annotations

import json

import pytest

from ctxguard.engine.probes import WORDS_AFTER, Probe, extract, measure
from ctxguard.kinds.definitions import definition_name
from ctxguard.kinds.diff.lines import error_message
from ctxguard.kinds.json.probes import prefix_key_paths
from tests.conftest import SampleReader


def _values(kind: str, text: str, probe_kind: str) -> list[str]:
    return [p.value for p in extract(kind, text) if p.kind == probe_kind]


def test_diff_probes_paths_definitions_and_error_messages(sample: SampleReader) -> None:
    text = sample("python-change.diff")
    assert "src/payments/service.py" in _values("diff", text, "path")
    names = _values("diff", text, "definition")
    assert "charge" in names and "refund" in names
    errors = _values("diff", text, "error")
    assert "invoice {invoice.id} could not be charged: {last_error}" in errors
    assert "charge failed for invoice %s after %d attempts" in errors


def test_definition_names_across_languages() -> None:
    assert definition_name("    async def refund(self, receipt):") == "refund"
    assert definition_name("func (s *Server) Handle(w http.ResponseWriter) error {") == "Handle"
    assert definition_name("pub fn parse_amount(raw: &str) -> Decimal {") == "parse_amount"
    assert definition_name("export const total = (lines) => {") == "total"
    assert definition_name("public Receipt charge(Invoice invoice) {") == "charge"
    assert definition_name("type Config struct {") == "Config"
    assert error_message('    raise ValueError("amount is not a number")') == "amount is not a number"


def test_log_probes_edges_and_templates(sample: SampleReader) -> None:
    text = sample("traceback.log")
    probes = extract("log", text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert Probe("first", lines[0]) in probes and Probe("last", lines[-1]) in probes
    templates = [p.value for p in probes if p.kind == "template"]
    assert "#-#-# #:#:#,# ERROR batch # failed" in templates
    assert "#-#-# #:#:#,# WARNING slow query: #.#s on batch #" in templates
    # The final `ExceptionType: message` line of the traceback is a probe of its own.
    assert "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]" in templates
    # Numbers and ids are normalised: the same error at other times is one template.
    log = "ERROR job 1 failed after 30ms\nINFO ok\nERROR job 2 failed after 41ms\n"
    assert _values("log", log, "template") == ["ERROR job # failed after #ms"]


def test_json_probes_collapse_indices_and_include_parsing() -> None:
    text = json.dumps({"items": [{"id": 1, "tags": ["a"]}, {"id": 2, "owner": {"name": "x"}}], "ok": True})
    assert _values("json", text, "key") == [
        "items",
        "items[].id",
        "items[].owner",
        "items[].owner.name",
        "items[].tags",
        "ok",
    ]
    assert _values("json", text, "parses") == ["output is valid JSON"]
    assert _values("json", "{not json", "key") == []


def test_markdown_probes(sample: SampleReader) -> None:
    text = sample("plan-with-tables.md")
    probes = extract("markdown", text)
    kinds = {p.kind for p in probes}
    assert {"heading", "table", "task"} <= kinds
    headings = [line.strip() for line in text.splitlines() if line.startswith("#")]
    assert [p.value for p in probes if p.kind == "heading"] == headings
    md = "# T\n\n```python\n\nprint('x')\n```\n\n- [ ] open one\n- [x] done one\n"
    assert _values("markdown", md, "code") == ["print('x')"]
    assert _values("markdown", md, "task") == ["- [ ] open one"]


def test_measure_lists_what_was_missed() -> None:
    raw = "# Plan\n\n## Risks\n\nSome text.\n\n- [ ] migrate the data\n"
    kept = measure("markdown", raw, "# Plan\n\n- [ ] migrate the data\n")
    assert (kept.probes, kept.kept) == (3, 2)
    assert [str(p) for p in kept.missed] == ["heading: ## Risks"]
    assert kept.to_dict(missed=True) == {"probes": 3, "kept": 2, "missed": ["heading: ## Risks"]}


def test_cut_json_gets_credit_only_for_the_key_paths_it_shows() -> None:
    text = json.dumps({"a": {"b": [{"c": 1, "d": {"e": 2}}], "f": "x"}, "g": [[{"h": 1}]]})
    assert sorted(set(prefix_key_paths(text))) == ["a", "a.b", "a.b[].c", "a.b[].d", "a.b[].d.e", "a.f", "g", "g[][].h"]
    assert sorted(set(prefix_key_paths(text[:30]))) == ["a", "a.b", "a.b[].c", "a.b[].d"]
    kept = measure("json", text, text[:30])
    assert kept.kept == 4 and "parses: output is valid JSON" in [str(p) for p in kept.missed]


def test_json_probes_are_key_paths_measured_as_sets_and_listed_in_order() -> None:
    raw = json.dumps({"z": [{"y": 1}, {"x": 2}], "a": {"": 3, "b": 4}})
    found = extract("json", raw)
    assert [str(p) for p in found] == [
        "parses: output is valid JSON",
        "key: a",
        "key: a.",
        "key: a.b",
        "key: z",
        "key: z[].x",
        "key: z[].y",
    ]
    kept = measure("json", raw, json.dumps({"z": [{"y": 1}], "a": {"b": 4}}), found)
    assert (kept.probes, kept.kept) == (7, 5)
    assert kept.to_dict(missed=True)["missed"] == ["key: a.", "key: z[].x"]
    # Unparseable: no credit for parsing, and only the key paths its text shows.
    cut = measure("json", raw, raw[:12], found)
    assert cut.kept == 2 and [str(p) for p in cut.missed][:2] == ["parses: output is valid JSON", "key: a"]
    assert extract("json", '{"": 1}')[1:] == [] and len(extract("json", '{"": 1}')) == 1


def test_probes_are_found_in_any_order_and_whole_words_only() -> None:
    # The finder looks after its last hit first; a probe shown earlier must still count.
    raw = "".join(
        f"diff --git a/{n}_m.py b/{n}_m.py\n--- a/{n}_m.py\n+++ b/{n}_m.py\n@@ -1 +1 @@\n-x\n+def {n}(a):\n"
        for n in ("alpha", "beta", "gamma")
    )
    found = extract("diff", raw)
    shown = "def gamma(a):\n gamma_m.py\n def beta(a):\n beta_m.py\n alpha_m.py\n alphabet(a)\n"
    kept = measure("diff", raw, shown, found)
    assert [str(p) for p in kept.missed] == ["definition: alpha"]
    assert kept.kept == kept.probes - 1


@pytest.mark.parametrize("words_after", [0, 3, WORDS_AFTER])
def test_probes_are_found_as_a_search_of_the_whole_content_finds_them(
    words_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The word index decides misses without searching (once that many probes were missed: a
    content that keeps its probes is never read into words); it must agree with plain search."""
    import random

    from ctxguard.engine import probes
    from ctxguard.engine.probes import Probe, _Finder, _word_at

    monkeypatch.setattr(probes, "WORDS_AFTER", words_after)

    rng = random.Random(3)
    pieces = ["def ", "run", "_job", "(", ")", " ", "\n", "a/b.py", "$x", "raise ", "Error", ": ", "x.y", "'"]
    for _ in range(400):
        content = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        finder = _Finder(content, {})
        for _ in range(10):
            value = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))).strip()
            if not value:
                continue
            for kind, word in (("definition", True), ("error", False), ("path", False)):
                expected = (_word_at(content, value) if word else content.find(value)) >= 0
                assert finder.has(Probe(kind, value)) == expected, (content, value, kind)


SCANS = [(-1, 0, True), (0, 5, True), (64, 256, True), (-1, 0, False)]  # (scans first, together, the wheel)


@pytest.mark.parametrize(("misses", "together", "wheel"), SCANS)
def test_many_probes_searched_for_together_are_found_as_each_search_finds_them(
    misses: int, together: int, wheel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the searches read SCANS_FIRST contents' worth with TOGETHER probes to go, the plain ones left are
    searched for in one scan (every match, one inside another's too: `a.py` in `ba.py`), or one
    by one without the automaton's wheel; the answers must be each search's."""
    import random

    from ctxguard import literals
    from ctxguard.engine import probes
    from ctxguard.engine.probes import _word_at

    monkeypatch.setattr(literals, "SCANS_FIRST", misses)  # (the probes' check asks literals.one_scan_pays)
    monkeypatch.setattr(literals, "TOGETHER", together)
    if not wheel:
        monkeypatch.setattr(probes, "present", lambda words, text: None)
    rng = random.Random(5)
    pieces = ["def ", "run", "_job", "(", ")", " ", "\n", "a/b.py", "ba.py", "a.py", "raise ", "Error", ": ", "ç"]
    for _ in range(60):
        content = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        values = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 3))).strip() for _ in range(300)]
        found = [Probe(kind, v) for v in dict.fromkeys(values) if v for kind in ("definition", "error", "path")]
        expected = [
            p for p in found if (_word_at(content, p.value) if p.kind == "definition" else content.find(p.value)) < 0
        ]
        kept = measure("diff", content, content, found)
        assert list(kept.missed) == expected, content
        assert kept.kept == len(found) - len(expected)


def test_a_value_found_only_inside_another_values_match_is_found() -> None:
    from ctxguard.literals import present

    assert present(["ba.py", "a.py", "a.p", "zz.py"], "x ba.py y") == {"ba.py", "a.py", "a.p"}
