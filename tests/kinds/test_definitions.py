from __future__ import annotations

import random

import pytest

from ctxguard.kinds.definitions import _PATTERNS, DEFINITION, is_definition, language


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("def charge(self, invoice):", True),
        ("    async def refund(self):", True),
        ("class Pool(Base):", True),
        ("export async function load(id: string): Promise<Item> {", True),
        ("const handler = async (req, res) => {", True),
        ("export interface Props {", True),
        ("export default class Store {", True),
        ("func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {", True),
        ("pub(crate) async fn fetch(&self) -> Result<()> {", True),
        ("impl Display for Point {", True),
        ("public static int parse(String s) throws IOException {", True),
        ("public final class Parser {", True),
        ("static int parse_header(const char *buf, size_t n)", True),
        ("    if (x > 0) {", False),
        ("    return compute(x);", False),
        ("    total += item.price", False),
        ("for (int i = 0; i < n; i++) {", False),
    ],
)
def test_any_language(line: str, expected: bool) -> None:
    assert is_definition(line) is expected


@pytest.mark.parametrize(
    ("name", "line", "expected"),
    [
        ("pay.py", "    async def refund(self):", True),
        ("pay.py", "class Pool(Base):", True),
        # Python lines that the C declaration form would take for signatures
        ("pay.py", "        assert isinstance(child, TableRowElement)", False),
        ("pay.py", "        elif isinstance(child, TableBodyElement):", False),
        ("pay.py", "from .fields import (", False),
        ("pay.py", "        with open(filename, encoding=self.encoding) as f:", False),
        ("pay.py", "        width: The width available (number of cells).", False),
        ("app.ts", "  private async load(id: string): Promise<void> {", True),
        ("app.ts", "export const Button = (props: Props) => {", True),
        ("app.ts", "export abstract class Shape {", True),
        ("app.ts", "    assert isinstance(child, Row)", False),
        ("main.go", "func (s *Server) Close() error {", True),
        ("main.go", "type Config struct {", True),
        ("main.go", "    defer close(done)", False),
        ("lib.rs", "pub(crate) async fn fetch(&self) -> Result<()> {", True),
        ("lib.rs", "    let total = sum(values);", False),
        ("Parser.java", "public final class Parser {", True),
        ("Parser.java", "    private static int parse(String s) throws IOException {", True),
        ("io.c", "static int parse_header(const char *buf, size_t n)", True),
        ("io.c", "#define MAX_LINE 4096", True),
        ("io.c", "    if (x > 0) {", False),
    ],
)
def test_per_language(name: str, line: str, expected: bool) -> None:
    assert is_definition(line, language(name)) is expected


def test_language_from_the_name() -> None:
    assert [language(n) for n in ("a/b.py", "X.TSX", "main.go", "lib.rs", "Foo.java", "x.hpp")] == [
        "python",
        "js",
        "go",
        "rust",
        "c",
        "c",
    ]
    assert language("README.md") is None and language("Makefile") is None and language("") is None


_PIECES = [
    "def",
    "class",
    "function",
    "fn",
    "func",
    "struct",
    "enum",
    "type",
    "interface",
    "trait",
    "impl",
    "mod",
    "union",
    "macro_rules!",
    "record",
    "typedef",
    "namespace",
    "template",
    "#define",
    "pub",
    "pub(crate)",
    "export",
    "default",
    "async",
    "const",
    "let",
    "var",
    "public",
    "static",
    "final",
    "void",
    "int",
    "return",
    "if",
    "new",
    "get",
    "x",
    "name",
    "Foo<T>",
    "(",
    ")",
    "{",
    "}",
    "=>",
    "=",
    ":",
    ";",
    "*",
    "&",
    "~",
    ",",
    "<",
    ">",
    "[",
    "]",
    '"C"',
]


@pytest.mark.parametrize("lang", [None, *sorted(_PATTERNS)])
def test_the_prefilter_agrees_with_the_whole_pattern(lang: str | None) -> None:
    # is_definition skips the pattern for lines holding none of the words, "(" or "=>" that
    # every form needs; on any line it must answer as the language's pattern alone does.
    pattern = _PATTERNS[lang] if lang else DEFINITION
    rng = random.Random(7)
    hits = 0
    for _ in range(20000):
        parts = [rng.choice(_PIECES) for _ in range(rng.randrange(1, 8))]
        line = " " * rng.randrange(3) + "".join(p + rng.choice(["", " ", "  "]) for p in parts) + "\n"
        expected = pattern.match(line) is not None
        assert is_definition(line, lang) == expected, line
        hits += expected
    assert hits > 100  # the generated lines reach the pattern's forms, not only its misses


def test_a_language_tries_only_its_forms() -> None:
    # Each language's pattern is the generic one narrowed: what it finds, the generic one finds.
    rng = random.Random(11)
    for _ in range(5000):
        parts = [rng.choice(_PIECES) for _ in range(rng.randrange(1, 8))]
        line = "".join(p + rng.choice(["", " "]) for p in parts)
        for pattern in _PATTERNS.values():
            assert pattern.match(line) is None or DEFINITION.match(line) is not None, line
