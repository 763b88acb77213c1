"""What marks a finding as a likely fresh mistake, whichever tool wrote it, for the kinds that
read reports of many findings (a type checker's, linter's or compiler's log; SARIF), where what a
change broke sits among a project's standing findings:

- it names a near name it may have meant: a typo (`‘delt’ undeclared …; did you mean ‘delta’?`
  gcc, `Name "factroy" is not defined; did you mean "factory"?` and `has no attribute "joins";
  maybe "join"?` mypy, `Did you mean: 'x'?` Python, `Did you mean 'x'?` tsc);
- it says a name does not resolve: the code refers to something that is not there and cannot run
  (`F821 Undefined name` ruff and flake8, `is not defined` mypy, pyright, eslint and Python,
  `undeclared` gcc and clang, `cannot find value` rustc, `cannot find symbol` javac, `Cannot
  find name` tsc, `undefined: x` go).

A style rule, a missing annotation or a complexity finding is none of these, however rare.
"""

from __future__ import annotations

import re

SUGGESTS = re.compile(r"\b(?:[Dd]id you mean|maybe|perhaps you meant)\b:? ?[‘'\"`]")
UNRESOLVED = re.compile(
    r"\b(?:[Uu]ndefined name:? ?[`'\"‘]|is not defined\b|undeclared\b"
    r"|[Cc]annot find (?:name|symbol|value|function|type)\b|[Uu]nresolved reference|undefined: )"
)


def fresh(message: str) -> bool:
    """Whether a finding's message marks a likely fresh mistake (a typo or a name that does not
    resolve)."""
    return SUGGESTS.search(message) is not None or UNRESOLVED.search(message) is not None
