from __future__ import annotations

import random

from ctxguard import compress_text
from ctxguard.handlers.text import DEFINITION, is_definition
from tests.helpers import budget_for_tier2, independent_count
import pytest


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("def charge(self, invoice):", True),
        ("    async def refund(self):", True),
        ("class Pool(Base):", True),
        ("export async function load(id: string): Promise<Item> {", True),
        ("const handler = async (req, res) => {", True),
        ("export interface Props {", True),
        ("func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {", True),
        ("pub(crate) async fn fetch(&self) -> Result<()> {", True),
        ("impl Display for Point {", True),
        ("public static int parse(String s) throws IOException {", True),
        ("static int parse_header(const char *buf, size_t n)", True),
        ("    if (x > 0) {", False),
        ("    return compute(x);", False),
        ("    total += item.price", False),
        ("for (int i = 0; i < n; i++) {", False),
    ],
)
def test_is_definition(line: str, expected: bool) -> None:
    assert is_definition(line) is expected


def test_code_keeps_signatures_head_and_tail() -> None:
    body = "".join(f"    value_{i} = compute_{i}(value_{i - 1})\n" for i in range(1, 40))
    text = "".join(f"def step_{n}(value_0):\n{body}    return value_39\n\n" for n in range(6))
    record = compress_text(text, budget_for_tier2(text), name="steps.py")
    content = record["content"]
    assert record["tier"] == 2 and independent_count(content) <= record["budget"]
    assert all(f"def step_{n}(value_0):" in content for n in range(6))
    assert "lines omitted)" in content


_PIECES = ["def", "class", "function", "fn", "func", "struct", "enum", "type", "interface", "trait",
           "impl", "mod", "union", "macro_rules!", "record", "typedef", "namespace", "template",
           "#define", "pub", "pub(crate)", "export", "default", "async", "const", "let", "var",
           "public", "static", "void", "int", "return", "if", "new", "get", "x", "name", "Foo<T>",
           "(", ")", "{", "}", "=>", "=", ":", ";", "*", "&", "~", ",", "<", ">", "[", "]", '"C"']


def test_is_definition_agrees_with_the_whole_pattern() -> None:
    # is_definition skips the pattern for lines holding none of the words, "(" or "=>" that
    # every branch of it needs; on any line it must answer as the pattern alone does.
    rng = random.Random(7)
    for _ in range(20000):
        parts = [rng.choice(_PIECES) for _ in range(rng.randrange(1, 8))]
        line = " " * rng.randrange(3) + "".join(p + rng.choice(["", " ", "  "]) for p in parts) + "\n"
        assert is_definition(line) == (DEFINITION.match(line) is not None), line
