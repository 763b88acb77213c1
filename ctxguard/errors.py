"""The expected-error family: each maps to one documented exit code."""

from __future__ import annotations

EXIT_OK = 0
EXIT_POLICY = 1
EXIT_USAGE = 2
EXIT_CRASH = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a terminated command


class Terminated(BaseException):
    """SIGTERM arrived (a CI job cancelled, a hook's timeout): raised where the run stands, so
    what it was writing is cleaned up as after Ctrl-C, and said."""


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


def io_message(exc: OSError) -> str:
    """An operating-system failure as a sentence that says what happened and what to do."""
    import errno

    where = f" {exc.filename}" if exc.filename else ""
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return f"no space left on the device while writing{where}; free some space or write elsewhere (--output)"
    if exc.errno == errno.EFBIG:
        return (
            f"file too large while writing{where}: a file-size limit (ulimit -f) stops it; raise the "
            "limit or write a smaller bundle (a lower total_budget)"
        )
    if exc.errno == errno.EROFS:
        return f"cannot write{where}: the file system is read-only; choose a writable --output"
    if isinstance(exc, PermissionError):
        return f"cannot write{where}: permission denied; choose a folder you can write (--output)"
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename} is a directory; name a file inside it (for example {exc.filename}/bundle.json)"
    if isinstance(exc, NotADirectoryError):
        return f"cannot write{where}: a part of the path is a file, not a folder"
    return f"{exc.strerror or exc}{where and ': ' + where.strip()}"
