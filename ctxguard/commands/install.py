"""ctxguard install / uninstall: a `git ctx` alias and a plain git pre-commit hook."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from ctxguard.errors import EXIT_OK, UsageError

MARK = "# installed by ctxguard"
HOOK = """\
#!/bin/sh
{mark}: `ctxguard uninstall hook` removes it.
# Writes the budgeted bundle for the staged diff; a failed policy (fail_on) stops the commit.
if [ -x {python} ]; then
  exec {python} -m ctxguard bundle --check "$@"
fi
exec ctxguard bundle --check "$@"
"""


def add_parser(sub: Any) -> None:
    texts = {
        "install": (
            "`git <name>` runs `ctxguard bundle`",
            "in ~/.gitconfig, not this repository",
            "a .git/hooks/pre-commit that runs `ctxguard bundle --check`",
            "install into core.hooksPath even though it points elsewhere",
        ),
        "uninstall": (
            "remove the `git <name>` alias ctxguard added (an alias it did not make is left alone)",
            "from ~/.gitconfig, not this repository",
            "remove the .git/hooks/pre-commit ctxguard wrote (a hook it did not write is left alone)",
            "accepted for symmetry: uninstall removes its own hook wherever core.hooksPath points",
        ),
    }
    for verb, help_text in (
        ("install", "add the `git ctx` alias or a plain git pre-commit hook"),
        ("uninstall", "remove what `ctxguard install` added"),
    ):
        alias_help, global_help, hook_help, hooks_path_help = texts[verb]
        parser = sub.add_parser(
            verb,
            help=help_text,
            description=help_text,
            epilog=f"examples:\n  ctxguard {verb} alias --name ctx\n  ctxguard {verb} hook",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        what = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
        alias = what.add_parser("alias", help=alias_help, description=alias_help)
        alias.add_argument("--name", default="ctx", help="alias name (default: ctx)")
        alias.add_argument("--global", dest="global_", action="store_true", help=global_help)
        alias.add_argument("--repo", default=".", help="the repository (default: the current one)")
        hook = what.add_parser("hook", help=hook_help, description=hook_help)
        hook.add_argument("--repo", default=".", help="the repository (default: the current one)")
        hook.add_argument("--hooks-path", action="store_true", help=hooks_path_help)
        parser.set_defaults(func=run_install if verb == "install" else run_uninstall)


def _alias_value() -> str:
    return f"!{shlex.quote(sys.executable)} -m ctxguard bundle"


def _config(args: argparse.Namespace) -> Any:
    """A callable running `git config` in the right scope."""
    from ctxguard.git import repo as cgit

    if args.global_:
        import git

        runner = git.Git()
        return lambda *a: runner.config("--global", *a)
    repo = cgit.open_repo(args.repo)
    return lambda *a: repo.git.config("--local", *a)


def _current_alias(config: Any, key: str) -> str | None:
    import git

    try:
        return str(config("--get", key))
    except git.GitCommandError:
        return None


def _hook_path(args: argparse.Namespace, installing: bool = True) -> Path:
    import git

    from ctxguard.git import repo as cgit

    repo = cgit.open_repo(args.repo)
    try:
        configured = str(repo.git.config("--get", "core.hooksPath"))
    except git.GitCommandError:
        configured = ""
    common = Path(repo.git.rev_parse("--git-common-dir"))
    common = common if common.is_absolute() else cgit.root(repo) / common
    default = (common / "hooks").resolve()
    hooks = cgit.git_path(repo, "hooks")
    if installing and configured and hooks.resolve() != default and not args.hooks_path:
        raise UsageError(
            f"core.hooksPath is set to {configured!r}, so git does not run hooks from {default}; "
            "another hook manager may own it. Pass --hooks-path to install there anyway, or use the "
            "pre-commit framework hook (see the README)"
        )
    return hooks / "pre-commit"


def _owned(path: Path) -> bool:
    try:
        return MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def run_install(args: argparse.Namespace) -> int:
    if args.what == "alias":
        config, key = _config(args), f"alias.{args.name}"
        current = _current_alias(config, key)
        if current is not None and "ctxguard" not in current:
            raise UsageError(f"git alias {args.name!r} already exists ({current!r}); choose another with --name")
        config(key, _alias_value())
        print(
            f"ctxguard: `git {args.name}` now runs `ctxguard bundle` "
            f"({'global' if args.global_ else 'this repository'})",
            file=sys.stderr,
        )
        return EXIT_OK
    path = _hook_path(args)
    if path.exists() and not _owned(path):
        raise UsageError(
            f"{path} exists and was not written by ctxguard; refusing to overwrite it. "
            f"Call `ctxguard bundle --check` from it yourself"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOOK.format(mark=MARK, python=shlex.quote(sys.executable)), encoding="utf-8")
    path.chmod(0o755)
    print(f"ctxguard: installed {path}", file=sys.stderr)
    return EXIT_OK


def run_uninstall(args: argparse.Namespace) -> int:
    if args.what == "alias":
        config, key = _config(args), f"alias.{args.name}"
        current = _current_alias(config, key)
        if current is None:
            print(f"ctxguard: no git alias {args.name!r}; nothing to do", file=sys.stderr)
            return EXIT_OK
        if "ctxguard" not in current:
            raise UsageError(f"git alias {args.name!r} ({current!r}) was not made by ctxguard; leaving it")
        config("--unset", key)
        print(f"ctxguard: removed git alias {args.name!r}", file=sys.stderr)
        return EXIT_OK
    path = _hook_path(args, installing=False)  # removing our own hook is fine wherever it is
    if not path.exists():
        print(f"ctxguard: no hook at {path}; nothing to do", file=sys.stderr)
        return EXIT_OK
    if not _owned(path):
        raise UsageError(f"{path} was not written by ctxguard; leaving it")
    path.unlink()
    print(f"ctxguard: removed {path}", file=sys.stderr)
    return EXIT_OK
