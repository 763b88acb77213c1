"""The registry imports a kind when it is first asked for, and tells a kind by a file's name
from tables of its own: they must say what each kind's KIND says."""

from __future__ import annotations

import ast
import subprocess
import sys

from ctxguard.kinds.registry import KINDS, SUFFIXES, WITHIN
from ctxguard.options import TYPES
from tests.conftest import ROOT


def test_the_registrys_name_tables_are_the_kinds_own() -> None:
    assert set(KINDS) == set(TYPES)
    assert {name: KINDS[name].suffixes for name in KINDS if KINDS[name].suffixes} == SUFFIXES
    assert {name: KINDS[name].within for name in KINDS if KINDS[name].within} == WITHIN
    assert all(KINDS[name].name == name for name in KINDS) and "nothing" not in KINDS


def test_a_staged_diff_imports_no_other_kind() -> None:
    """The hook's case: classify and cut a diff; JSON, markdown, JUnit and SARIF stay unread."""
    code = (
        "import sys\n"
        "from ctxguard.api import compress_text\n"
        "compress_text('diff --git a/x.py b/x.py\\n--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a = 1\\n+a = 2\\n', 64,"
        " name='x.diff')\n"
        "print(sorted(m for m in sys.modules if m.startswith('ctxguard.kinds.') and m.count('.') == 2))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    imported = ast.literal_eval(done.stdout)
    assert "ctxguard.kinds.diff" in imported
    assert not {f"ctxguard.kinds.{name}" for name in ("json", "markdown", "junit", "sarif")} & set(imported)
