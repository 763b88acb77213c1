"""ctxguard: budget the artifacts that AI review and judge agents read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.4.0"

if TYPE_CHECKING:
    from ctxguard.api import compress_file, compress_text, count_tokens

__all__ = ["__version__", "compress_file", "compress_text", "count_tokens"]


def __getattr__(name: str) -> Any:
    """The API, imported when first asked for (PEP 562): `import ctxguard` and the command line,
    which reads only `__version__` here, do not pay for the whole pipeline."""
    if name in ("compress_file", "compress_text", "count_tokens"):
        from ctxguard import api

        return getattr(api, name)
    raise AttributeError(f"module 'ctxguard' has no attribute {name!r}")
