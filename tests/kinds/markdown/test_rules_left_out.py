"""The rules a cut leaves out are counted as a search of the content for each would count
them (they are searched for together, in one scan; one by one without the automaton's wheel)."""

from __future__ import annotations

import importlib
import random

import pytest

from ctxguard import literals
from ctxguard.kinds.markdown.model import read

markdown_plan = importlib.import_module("ctxguard.kinds.markdown.plan")  # (the package's `plan` is the function)


@pytest.mark.parametrize("wheel", [True, False])
def test_rules_left_out_are_those_the_content_does_not_show_whole(wheel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not wheel:
        monkeypatch.setattr(literals, "present", lambda words, text: None)
    monkeypatch.setattr(literals, "SCANS_FIRST", -1)  # (the one scan, from the first rule on)
    monkeypatch.setattr(literals, "TOGETHER", 0)
    rng = random.Random(9)
    rules = [f"It MUST keep part {i} of the file." for i in range(40)] + ["Clients SHOULD retry."] * 3
    doc = read("# Spec\n\n" + " ".join(rules) + "\n\nThe server MUST NOT log tokens.\n")
    wanted = markdown_plan.rules(doc)
    assert len(wanted) == 44
    for _ in range(30):
        shown = rng.sample(wanted, rng.randint(0, len(wanted)))
        content = "# Spec\n\n" + "\n".join(" ".join(rule.split(" ", 2)) for rule in shown) + "\n"
        said, lost, total = markdown_plan.left_out(doc, content)
        flat = " ".join(content.split())
        assert (lost, total) == (sum(rule not in flat for rule in wanted), 44)
