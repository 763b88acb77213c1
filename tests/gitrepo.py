"""Real temporary git repositories for tests, and a snapshot of everything a command may not touch."""

from __future__ import annotations

import hashlib
from pathlib import Path

import git


class Repo:
    """A repository whose commits have fixed dates (a second apart), so the same steps make the
    same commit ids: a test's token counts do not move with the clock (a 40-hex id's tokens vary)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.commits = 0
        self.git = git.Repo.init(path, initial_branch="main")
        self.git.git.config("user.email", "test@example.com")
        self.git.git.config("user.name", "Test")

    def write(self, name: str, content: str | bytes, mode: int | None = None) -> Path:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(content.encode())
        if mode is not None:
            target.chmod(mode)
        return target

    def add(self, *names: str) -> None:
        self.git.git.add("--", *(names or (".",)))

    def commit(self, message: str = "change") -> str:
        self.git.git.add("-A")
        self.git.git.commit("-q", "-m", message, env=self.dated())
        return str(self.git.head.commit.hexsha)

    def merge(self, *args: str) -> None:
        """`git merge` with the arguments, its commit dated as commit() dates them."""
        self.git.git.merge(*args, env=self.dated())

    def dated(self) -> dict[str, str]:
        """The environment that dates the next commit: a second after the one before."""
        self.commits += 1
        date = f"{1_700_000_000 + self.commits} +0000"
        return {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}

    def snapshot(self) -> tuple[str, bytes, str]:
        """The work tree's files, the index bytes and `git status` — all that must not change."""
        digest = hashlib.sha256()
        for path in sorted(self.path.rglob("*")):
            if ".git" in path.relative_to(self.path).parts or not path.is_file():
                continue
            digest.update(str(path.relative_to(self.path)).encode() + b"\0" + path.read_bytes())
        index = self.path / ".git" / "index"
        status = self.git.git.status("--porcelain", "--untracked-files=all")
        return digest.hexdigest(), index.read_bytes() if index.exists() else b"", status


def configured(path: Path, config: str) -> Repo:
    """A repository with a .ctxguard.yaml and one committed Python file."""
    repo = Repo(path)
    repo.write(".ctxguard.yaml", config)
    repo.write("app.py", "def main():\n    return 1\n")
    repo.commit("initial")
    return repo
