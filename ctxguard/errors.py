"""The expected-error family: each maps to one documented exit code."""
from __future__ import annotations

EXIT_OK = 0
EXIT_POLICY = 1
EXIT_USAGE = 2
EXIT_CRASH = 3
EXIT_INTERRUPTED = 130


class CtxguardError(Exception):
    """An error we expect and explain to the user; never shown as a traceback."""

    exit_code = EXIT_USAGE


class UsageError(CtxguardError):
    """Bad command-line input (a budget too small, an unknown type …)."""


class ConfigError(CtxguardError):
    """The config file is missing, unreadable or invalid."""


class TokenizerError(CtxguardError):
    """No encoding could be loaded and `--strict` forbids the estimate."""


class GitError(CtxguardError):
    """git could not give us what the config asked for."""
