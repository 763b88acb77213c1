"""ctxguard: budget the artifacts that AI review and judge agents read."""

from __future__ import annotations

__version__ = "0.1.0"

from ctxguard.api import compress_file, compress_text, count_tokens  # noqa: E402

__all__ = ["__version__", "compress_file", "compress_text", "count_tokens"]
