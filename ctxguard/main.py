"""The command line: argparse subcommands, each a function returning an exit code."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence

from ctxguard.errors import (
    EXIT_CRASH,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    CtxguardError,
    Terminated,
    io_message,
)


class _Version(argparse.Action):
    """`--version`: worked out only when asked (a build's stamp, or git in a checkout), never at
    a hook's every run."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from ctxguard.version import described

        print(f"ctxguard {described()}")
        parser.exit()


EXAMPLES = """\
examples:
  ctxguard compress examples/artifacts/failing-tests.log --budget 500
  ctxguard compress build/out.json --budget 2000 --type json --task "keep error codes"
  git diff | ctxguard compress - --budget 3000 --type diff
  ctxguard count docs/plan.md --encoding cl100k_base
  ctxguard init && ctxguard bundle && ctxguard check
  ctxguard install alias && git ctx --diff main...HEAD
  ctxguard eval reports/ docs/ --ratios 0.8,0.5,0.2

exit codes: 0 ok, 1 policy failed, 2 usage/config/input error, 3 unexpected error,
130 interrupted, 143 terminated (SIGTERM).
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    from ctxguard.commands import bundle, compress, count, evaluate, init, install, mcp, show

    parser = argparse.ArgumentParser(
        prog="ctxguard",
        description="Budget the artifacts (diffs, logs, plans, JSON) that AI review agents read.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version (and the commit) and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (compress, count, bundle, show, init, install, evaluate, mcp):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    from ctxguard.tuning import tune_gc

    tune_gc()
    received: list[int] = []
    try:
        with _on_sigterm(received):
            result: int = args.func(args)
        if received:  # Terminated was raised where something swallowed it (a finaliser, an import)
            raise Terminated
        return result
    except Terminated:
        print("ctxguard: terminated (SIGTERM); nothing half-written was left", file=sys.stderr)
        return EXIT_TERMINATED
    except CtxguardError as exc:
        print(f"ctxguard: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("ctxguard: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `ctxguard compress … | head`: the reader left; not an error
        sys.stderr.close()
        return EXIT_USAGE
    except OSError as exc:  # the machine said no (a full disk, a read-only folder): not a bug
        print(f"ctxguard: error: {io_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # the one place a bug becomes a message instead of a traceback
        import traceback

        log = traceback.format_exc()
        print(
            f"ctxguard: unexpected error: {type(exc).__name__}: {exc}\n"
            "This is a bug in ctxguard; please report it with the details below.\n" + log,
            file=sys.stderr,
        )
        return EXIT_CRASH


@contextlib.contextmanager
def _on_sigterm(received: list[int]) -> Iterator[None]:
    """SIGTERM raises Terminated while the command runs (in the main thread, and only where
    nobody else chose what it does: an ignored or handled SIGTERM is left as it is). It is also
    written down in `received` first: Python drops an exception raised in a finaliser or a
    callback it calls on its own, and a SIGTERM is never lost with it (main acts on the note
    when the command returns)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def terminated(signum: int, frame: object) -> None:
        received.append(signum)
        raise Terminated

    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
