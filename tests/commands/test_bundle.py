"""ctxguard bundle / check / init end to end, in real temporary repositories."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxguard.bundle.model import level
from ctxguard.main import main
from ctxguard.record import offload_for
from tests.conftest import ROOT
from tests.generate import log_of
from tests.gitrepo import Repo, configured
from tests.helpers import independent_count

SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())
CONFIG = """\
version: 1
total_budget: 6000
artifacts:
  - name: diff
    diff: staged
    budget: 3000
  - name: logs
    paths: ["reports/**/*.log"]
    type: log
    budget: 600
    share_surplus: true
    max_raw_tokens: 100000
  - name: plan
    paths: ["docs/plan.md"]
    budget: 1000
    priority: high
  - name: outcomes
    paths: ["build/*.json"]
    budget: 500
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write(".ctxguard.yaml", CONFIG)
    r.write("app.py", "def main():\n    return 1\n")
    r.write("docs/plan.md", "# Plan\n\n- [ ] ship it\n")
    r.commit("initial")
    r.write("app.py", "def main():\n    raise SystemExit('boom')\n")
    r.write("reports/unit/run.log", log_of(3000))
    r.write("build/outcomes.json", json.dumps({"ok": False, "cases": list(range(5))}))
    r.add("app.py")
    return r


def _bundle(repo: Repo, *args: str) -> dict:  # type: ignore[type-arg]
    before = repo.snapshot()
    assert main(["bundle", "--repo", str(repo.path), *args]) == 0
    assert repo.snapshot() == before  # work tree, index and status untouched
    return json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())


def test_bundle_is_written_inside_the_git_dir_and_validates(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    data = _bundle(repo)
    jsonschema.validate(data, SCHEMA)
    names = [a["artifact_name"] for a in data["artifacts"]]
    assert names == ["diff", "reports/unit/run.log", "docs/plan.md", "build/outcomes.json"]
    diff = data["artifacts"][0]
    assert diff["files"] == {
        "columns": ["path", "added", "removed", "status", "shown"],
        "rows": [["app.py", 1, 1, "modified", "whole"]],
    }
    assert data["source"]["diff"] == "staged" and data["source"]["head"] == repo.git.head.commit.hexsha
    for record in data["artifacts"]:
        assert independent_count(record["content"]) == record["compacted_tokens"] <= record["budget"]
    assert data["totals"]["compacted_tokens"] <= data["total_budget"]
    serialized = (repo.path / ".git/ctxguard/bundle.json").read_text()
    assert data["totals"]["bundle_tokens"] == independent_count(serialized)
    err = capsys.readouterr().err
    usage = data["usage"]
    assert usage["tokens"] == data["totals"]["bundle_tokens"] and usage["window"] == 128_000
    assert (usage["level"], usage["action"]) == level(usage["tokens"], 128_000)
    assert "reports/unit/run.log" in err
    assert f"context: {usage['tokens']} of a 128000-token window ({usage['share']:.0%}) {usage['level']}: " in err


@pytest.mark.parametrize(
    ("used", "expected"), [(0, "GREEN"), (25, "YELLOW"), (50, "ORANGE"), (80, "RED"), (85, "CRITICAL")]
)
def test_usage_levels_are_shares_of_the_readers_window(used: int, expected: str) -> None:
    name, action = level(used * 1000, 100_000)
    assert name == expected and action


def test_context_window_sets_the_level(repo: Repo) -> None:
    data = _bundle(repo, "--context-window", "8000")
    tokens = data["usage"]["tokens"]
    assert data["usage"]["window"] == 8000 and data["usage"]["level"] == level(tokens, 8000)[0]
    repo.write(".ctxguard.yaml", "context_window: 4000\n" + CONFIG)
    assert _bundle(repo)["usage"]["window"] == 4000


def test_bundle_is_byte_identical_across_runs(repo: Repo) -> None:
    _bundle(repo)
    first = (repo.path / ".git/ctxguard/bundle.json").read_bytes()
    _bundle(repo)
    assert (repo.path / ".git/ctxguard/bundle.json").read_bytes() == first


def test_surplus_goes_to_the_log_that_shares_it_and_never_past_a_cap(repo: Repo) -> None:
    data = _bundle(repo)
    log = data["artifacts"][1]
    assert log["budget"] > 600  # the diff, plan and outcomes need far less than they were given
    assert log["budget"] + sum(a["budget"] for a in data["artifacts"] if a is not log) <= 6000
    repo.write(".ctxguard.yaml", CONFIG.replace("    share_surplus: true\n", ""))
    capped = _bundle(repo)["artifacts"][1]
    assert capped["budget"] == 600 and capped["compacted_tokens"] <= 600 and capped["truncated"]


def test_truncated_artifact_is_offloaded(repo: Repo) -> None:
    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1200"))
    data = _bundle(repo)
    log = data["artifacts"][1]
    assert log["truncated"] is True
    offloaded = repo.path / ".git/ctxguard" / log["offload"]["path"]  # (relative to the bundle)
    assert offloaded.read_text() == (repo.path / "reports/unit/run.log").read_text()
    assert offloaded.parent == repo.path / ".git/ctxguard/offload"
    assert "reports/unit/run.log: tier 3, TRUNCATED (cut)" in data["digest"]
    assert f"full text: {log['offload']['path']}" in data["digest"]


def test_markdown_format_and_split(repo: Repo, tmp_path: Path) -> None:
    out = tmp_path / "out.md"
    assert (
        main(
            [
                "bundle",
                "--repo",
                str(repo.path),
                "--format",
                "markdown",
                "--output",
                str(out),
                "--split",
                str(tmp_path / "split"),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert text.startswith("# ctxguard bundle\n") and "## docs/plan.md" in text and "```diff" in text
    files = sorted((tmp_path / "split").iterdir())
    assert len(files) == 4
    assert list(json.loads(files[0].read_text())) == [
        "artifact_name",
        "raw_tokens",
        "compacted_tokens",
        "truncated",
        "content",
    ]


def test_glob_matching_nothing_gives_a_clear_record(repo: Repo) -> None:
    (repo.path / "build/outcomes.json").unlink()
    data = _bundle(repo)
    assert data["artifacts"][3]["content"] == "[NO FILES MATCHED: build/*.json]"


def test_diff_override_and_empty_diff(repo: Repo) -> None:
    repo.git.git.reset("-q")
    data = _bundle(repo, "--diff", "staged")
    assert data["artifacts"][0]["content"] == "[NO CHANGES]"


def test_check_policies(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--repo", str(repo.path)]) == 0
    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1200"))
    assert main(["check", "--repo", str(repo.path)]) == 1
    assert "reports/unit/run.log was truncated" in capsys.readouterr().err
    repo.write(".ctxguard.yaml", CONFIG.replace("max_raw_tokens: 100000", "max_raw_tokens: 100"))
    assert main(["check", "--repo", str(repo.path)]) == 1
    assert "over its max_raw_tokens of 100" in capsys.readouterr().err
    repo.write(".ctxguard.yaml", "fail_on: never\n" + CONFIG.replace("total_budget: 6000", "total_budget: 1200"))
    assert main(["check", "--repo", str(repo.path)]) == 0


def test_config_error_exits_2_with_every_problem(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write(".ctxguard.yaml", "artifacts:\n  - name: d\n    budgit: 100\n")
    assert main(["bundle", "--repo", str(repo.path)]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'budget'" in err and "missing `budget`" in err


def test_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bundle", "--repo", str(tmp_path)]) == 2
    assert "not inside a git repository" in capsys.readouterr().err


def test_paths_outside_the_repository_are_refused(repo: Repo) -> None:
    repo.write(".ctxguard.yaml", "artifacts:\n  - name: x\n    paths: ['../secret.txt']\n    budget: 100\n")
    data = _bundle(repo)
    assert "leaves the repository" in data["artifacts"][0]["content"]


def test_init_writes_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert (tmp_path / ".ctxguard.yaml").read_text().startswith("# yaml-language-server: $schema=")
    assert main(["init"]) == 2


def test_symlink_pointing_outside_is_refused(repo: Repo, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    (repo.path / "docs/leak.md").symlink_to(secret)
    repo.write(".ctxguard.yaml", "artifacts:\n  - name: x\n    paths: ['docs/*.md']\n    budget: 100\n")
    data = _bundle(repo)
    assert [a["artifact_name"] for a in data["artifacts"]] == ["docs/plan.md"]
    assert "password" not in json.dumps(data)
    assert any("points outside the repository" in n for n in data["artifacts"][0]["notes"])


def test_offline_bundle_pays_for_the_warning_line(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    # A small diff must stay tier 1 when the estimate's warning line is added to its content.
    from ctxguard.tokens import load as tokens

    monkeypatch.setattr(tokens, "get_tokenizer", lambda encoding=None: tokens.HeuristicTokenizer(reason="offline"))
    repo.write("app.py", "".join(f"def handler_{i}():\n    return {i}\n" for i in range(40)))
    repo.add("app.py")
    data = _bundle(repo)
    diff = data["artifacts"][0]
    assert data["encoding"] == "heuristic"
    assert diff["tier"] == 1 and not diff["truncated"]
    assert diff["compacted_tokens"] <= diff["budget"]


def test_min_retention_gate(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    tight = CONFIG.replace("total_budget: 6000", "total_budget: 1200")
    repo.write(".ctxguard.yaml", "fail_on: never\nmin_retention: 1.0\n" + tight)
    assert main(["check", "--repo", str(repo.path), "--tier3", "head"]) == 1
    assert re.search(
        r"reports/unit/run\.log kept \d+ of \d+ probes \(0\.\d\d\), under its min_retention of 1\.0",
        capsys.readouterr().err,
    )
    per_entry = tight.replace("    max_raw_tokens: 100000\n", "    max_raw_tokens: 100000\n    min_retention: 0\n")
    repo.write(".ctxguard.yaml", "fail_on: never\nmin_retention: 1.0\n" + per_entry)
    assert main(["check", "--repo", str(repo.path), "--tier3", "head"]) == 0  # the entry's own floor wins


def test_digest_comes_first_is_paid_for_and_never_cut(repo: Repo) -> None:
    repo.write("docs/plan.md", "# Plan\n\n- [ ] migrate the invoices table\n- [x] write the spec\n")
    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1300"))
    data = _bundle(repo)
    jsonschema.validate(data, SCHEMA)
    assert list(data)[list(data).index("artifacts") - 1] == "digest"
    digest = data["digest"]
    assert independent_count(digest) == data["totals"]["digest_tokens"]
    assert data["totals"]["compacted_tokens"] + data["totals"]["digest_tokens"] <= data["total_budget"]
    assert "1 file changed (+1 -1)." in digest  # (each file is listed once: in the diff record's files)
    assert "ZeroDivisionError: division by zero" in digest  # from the log, though the log is cut
    assert "- [ ] migrate the invoices table (docs/plan.md)" in digest and "write the spec" not in digest
    log = next(a for a in data["artifacts"] if a["artifact_name"] == "reports/unit/run.log")
    assert log["truncated"]
    kept = log["retention"]
    assert f"- reports/unit/run.log: tier 3, TRUNCATED (cut), kept {kept['kept']}/{kept['probes']} probes" in digest
    markdown = bundle_markdown(repo)
    assert markdown.index("## Digest") < markdown.index("## Artifacts")


def bundle_markdown(repo: Repo) -> str:
    assert main(["bundle", "--repo", str(repo.path), "--format", "markdown"]) == 0
    return (repo.path / ".git/ctxguard/bundle.md").read_text()


def test_missed_probes_on_request(repo: Repo) -> None:
    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1300"))
    data = _bundle(repo, "--missed")
    log = next(a for a in data["artifacts"] if a["artifact_name"] == "reports/unit/run.log")
    assert len(log["retention"]["missed"]) == log["retention"]["probes"] - log["retention"]["kept"]
    assert "missed" not in _bundle(repo)["artifacts"][0]["retention"]


@pytest.mark.parametrize("output", ["../outside.json", "/tmp/ctxguard-outside.json", "link/bundle.json"])
def test_config_output_is_confined_to_the_repository(
    repo: Repo, tmp_path: Path, output: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo.path / "link").symlink_to(tmp_path)  # a symlinked folder that leads outside
    repo.write(".ctxguard.yaml", f"output: {output}\n" + CONFIG)
    assert main(["bundle", "--repo", str(repo.path)]) == 2
    assert "resolves outside the repository" in capsys.readouterr().err
    assert not (repo.path.parent / "outside.json").exists() and not (tmp_path / "bundle.json").exists()
    explicit = tmp_path / "chosen.json"  # named on the command line: the user's choice
    assert main(["bundle", "--repo", str(repo.path), "--output", str(explicit)]) == 0
    assert json.loads(explicit.read_text())["schema"] == "ctxguard.bundle/v2"


def test_config_output_inside_the_repository_must_be_ignored_by_git(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".ctxguard.yaml", "output: review/bundle.json\n" + CONFIG)
    assert main(["bundle", "--repo", str(repo.path)]) == 2  # `git add -A` would stage it
    assert "git does not ignore it" in capsys.readouterr().err and not (repo.path / "review").exists()
    repo.write(".gitignore", "review/\n")
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    assert (repo.path / "review/bundle.json").is_file()
    assert "review" not in repo.git.git.status("--porcelain", "--untracked-files=all")


@pytest.mark.parametrize("flag", ["--output", "--prompt"])
def test_a_path_named_on_the_command_line_in_the_work_tree_follows_the_same_rule(
    repo: Repo, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The flag and the config alike: in the work tree only where git ignores the file and the
    offload/ folder beside it, else refused (exit 2, nothing written) with the line to add."""
    repo.write("reports/unit/run.log", log_of(20000))  # (cut: its full text is offloaded)
    before = repo.snapshot()
    assert main(["bundle", "--repo", str(repo.path), flag, str(repo.path / "review.md")]) == 2
    err = capsys.readouterr().err
    assert "would be in the work tree where git does not ignore it" in err and "add '/review.md' to .gitignore" in err
    assert repo.snapshot() == before
    (repo.path / ".git/info/exclude").write_text("/review.md\n")  # the file, not its offload/ folder
    assert main(["bundle", "--repo", str(repo.path), flag, str(repo.path / "review.md")]) == 2
    assert "add '/offload/' to .gitignore" in capsys.readouterr().err and repo.snapshot() == before
    (repo.path / ".git/info/exclude").write_text("/review.md\n/offload/\n")
    assert main(["bundle", "--repo", str(repo.path), flag, str(repo.path / "review.md")]) == 0
    assert (repo.path / "review.md").is_file() and (repo.path / "offload").is_dir()  # (the log was cut)
    assert repo.git.git.status("--porcelain", "--untracked-files=all") == before[2]


def test_every_path_a_written_prompt_names_opens_from_where_it_is(repo: Repo, tmp_path: Path) -> None:
    """The Action writes the prompt form away from the bundle ($RUNNER_TEMP): the full texts it
    names are beside it too."""
    prompt = tmp_path / "runner-temp" / "ctxguard" / "prompt.md"
    repo.write("reports/unit/run.log", log_of(20000))
    assert main(["bundle", "--repo", str(repo.path), "--prompt", str(prompt)]) == 0
    bundle_path = repo.path / ".git/ctxguard/bundle.json"
    for written in (prompt, bundle_path):
        named = re.findall(r"offload/[0-9a-f]{16}\.\w+", written.read_text())
        assert named, written  # (the log was cut: there is a full text to name)
        for relative in named:
            full = written.parent / relative
            assert full.is_file(), (written, relative)
    bundle = json.loads(bundle_path.read_text())
    cut = next(a for a in bundle["artifacts"] if a["artifact_name"] == "reports/unit/run.log")
    assert (prompt.parent / cut["offload"]["path"]).read_text() == (repo.path / "reports/unit/run.log").read_text()


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_total_budget_bounds_the_written_bundle_with_many_files_and_artifacts(tmp_path: Path, fmt: str) -> None:
    repo = configured(
        tmp_path / "repo",
        "version: 1\ntotal_budget: 3000\nfail_on: over_budget\nartifacts:\n"
        "  - {name: diff, budget: 4000}\n  - {name: logs, paths: ['logs/*.log'], budget: 3000}\n",
    )
    for i in range(40):  # 40 changed files: their list alone would not fit with the digest
        repo.write(
            f"src/m{i}.py",
            "".join(f'def fn_{i}_{j}(a):\n    """Say "hi" {j}."""\n    return {{"k": a * {j}}}\n' for j in range(30)),
        )
    repo.add("src")
    for i in range(3):
        repo.write(f"logs/r{i}.log", "".join(f'2026-01-01 INFO step {j} "quoted" ok\n' for j in range(400)))
    out, split = tmp_path / f"bundle.{fmt}", tmp_path / "split"
    code = main(
        ["bundle", "--repo", str(repo.path), "--output", str(out), "--format", fmt, "--split", str(split), "--check"]
    )
    written = independent_count(out.read_text(encoding="utf-8"))
    assert written <= 3000
    assert sum(independent_count(p.read_text(encoding="utf-8")) for p in split.iterdir()) <= 3000
    assert code == 1  # the entries' raw text is over their budgets: over_budget says so, not the total
    if fmt == "json":
        diff = json.loads(out.read_text())["artifacts"][0]
        rows = diff["files"]["rows"]
        assert diff.get("files_not_listed", 0) + len(rows) == 40
        assert {row[4] for row in rows} <= {"whole", "cut", "omitted"}


def test_offloads_named_in_a_run_are_never_pruned_and_markdown_names_them(tmp_path: Path) -> None:
    from ctxguard.bundle import model as bundle
    from ctxguard.bundle import output, render
    from ctxguard.collect import Source
    from ctxguard.record import Record

    folder = tmp_path / "offload"
    named = [offload_for(f"raw text {i}\n", "log", folder, tmp_path) for i in range(250)]
    output.write_offloads([(target, f"raw text {i}\n") for i, (target, _) in enumerate(named)], folder)
    assert all((tmp_path / offload.path).exists() for _, offload in named)  # 250 > the 200 kept
    record = Record("f0.log", 900, 32, True, "[TRUNCATED: …]", "log", 3, 32, "o200k_base", offload=named[0][1])
    page = render.render(
        bundle.build(
            [record],
            source=Source("r", "h", None, "staged"),
            encoding="o200k_base",
            total_budget=None,
            digest="",
            digest_tokens=0,
        ),
        "markdown",
    )
    sha = named[0][1].sha256
    assert len(sha) == 16 and hashlib.sha256(b"raw text 0\n").hexdigest().startswith(sha)  # (14 tokens, not 43)
    assert named[0][1].path == f"offload/{sha}.log"
    assert f"> full text: `{named[0][1].path}`\n" in page  # (the sha256 once: the file's name)


def test_check_and_bundle_check_allocate_alike_under_a_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The diff fits total_budget as content, but not once written as JSON (fields, escaping):
    # `check` must see the cut `bundle --check` makes, not pass what the bundle then fails.
    repo = configured(tmp_path / "repo", "version: 1\nfail_on: truncated\nartifacts:\n  - {name: diff, budget: 9000}\n")
    repo.write(
        "quotes.py",
        "".join(f'MESSAGES["k{i}"] = {{"text": "say \\"hi\\" {i}", "tags": ["a", "b"]}}\n' for i in range(60)),
    )
    repo.add("quotes.py")
    assert main(["bundle", "--repo", str(repo.path), "--stdout"]) == 0
    raw = json.loads(capsys.readouterr().out)
    content_and_digest = raw["artifacts"][0]["raw_tokens"] + raw["totals"]["digest_tokens"]
    repo.write(
        ".ctxguard.yaml",
        # (tier2_ratio 1.0: any cut is a tier-3 cut, which fail_on: truncated fails)
        f"version: 1\ntotal_budget: {content_and_digest + 40}\nfail_on: truncated\ntier2_ratio: 1.0\n"
        "artifacts:\n  - {name: diff, budget: 9000}\n",
    )
    bundled = main(["bundle", "--repo", str(repo.path), "--check"])
    bundle_err = capsys.readouterr().err
    checked = main(["check", "--repo", str(repo.path)])
    check_err = capsys.readouterr().err
    assert bundled == checked == 1
    failed = [line for line in bundle_err.splitlines() if line.startswith("ctxguard: check failed")]
    assert failed and failed == [line for line in check_err.splitlines() if line.startswith("ctxguard: check failed")]


def test_a_repository_without_a_config_runs_with_the_defaults_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("app.py", "def main():\n    return 1\n")
    repo.add("app.py")
    assert main(["bundle", "--repo", str(repo.path), "--check", "--hook"]) == 0
    err = capsys.readouterr().err
    assert "no .ctxguard.yaml: using the defaults" in err and "ctxguard init" in err
    bundle = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    assert [a["artifact_name"] for a in bundle["artifacts"]] == ["diff"]
    assert "+def main():" in bundle["artifacts"][0]["content"]
    assert main(["check", "--repo", str(repo.path)]) == 0
    missing = tmp_path / "nowhere.yaml"
    assert main(["bundle", "--repo", str(repo.path), "--config", str(missing)]) == 2  # named: must exist


def test_every_cut_is_recoverable_from_its_offload_and_show_prints_a_gap(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.engine.test_gaps import GAP, check_gaps

    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1500"))
    capsys.readouterr()
    assert main(["bundle", "--repo", str(repo.path), "--stdout"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    log = next(a for a in streamed["artifacts"] if a["artifact_name"] == "reports/unit/run.log")
    assert (Path.cwd() / log["offload"]["path"]).is_file()  # written with --stdout too, named from here
    data = _bundle(repo)
    capsys.readouterr()
    folder = repo.path / ".git/ctxguard"
    log = next(a for a in data["artifacts"] if a["artifact_name"] == "reports/unit/run.log")
    assert log["tier"] > 1 and log["offload"]["path"].startswith("offload/")
    full = (folder / log["offload"]["path"]).read_text()
    assert full == (repo.path / "reports/unit/run.log").read_text()
    assert check_gaps(full, log["content"]) > 0  # each gap names exactly the lines it leaves out
    first = next(m for m in map(GAP.search, log["content"].splitlines()) if m)
    lines = f"{first.group(1)}-{first.group(2) or first.group(1)}"
    bundle_path = folder / "bundle.json"
    assert main(["show", str(bundle_path), "reports/unit/run.log", "--lines", lines]) == 0
    a, b = int(first.group(1)), int(first.group(2) or first.group(1))
    assert capsys.readouterr().out == "".join(full.splitlines(keepends=True)[a - 1 : b])
    assert main(["show", str(bundle_path), "--format", "prompt"]) == 0
    prompt = capsys.readouterr().out
    assert prompt.startswith("# Material to review") and log["content"].rstrip("\n") in prompt
    assert main(["show", str(bundle_path), "nope"]) == 2
    (folder / log["offload"]["path"]).write_text("changed\n")
    assert main(["show", str(bundle_path), "reports/unit/run.log", "--lines", "1"]) == 2
    assert "its sha256 differs" in capsys.readouterr().err


def test_show_grep_finds_what_a_cut_left_out_error_lines_first(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """`ctxguard show BUNDLE --grep PATTERN`: the full texts, not the cut contents; grep's form
    (`name:LINE:text`, context as `name-LINE-text`), error lines first, capped and counted."""
    log = "".join(f"step {i} ok\n" for i in range(400)) + "ERROR: disk full at step 17\n"
    log += "".join(f"step {i} ok\n" for i in range(400, 900)) + "Traceback: worker 3 died\n"
    repo.write("reports/unit/run.log", log)
    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1500"))
    data = _bundle(repo)
    record = next(a for a in data["artifacts"] if a["artifact_name"] == "reports/unit/run.log")
    assert record["tier"] > 1 and "step 250 ok" not in record["content"]
    bundle_path = str(repo.path / ".git/ctxguard/bundle.json")
    capsys.readouterr()
    assert main(["show", bundle_path, "--grep", r"step 25[01] ok|died|ERROR", "--context", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    raw = log.splitlines()
    died, error = raw.index("Traceback: worker 3 died") + 1, raw.index("ERROR: disk full at step 17") + 1
    assert out[:3] == [
        f"reports/unit/run.log-{error - 1}-step 399 ok",
        f"reports/unit/run.log:{error}:ERROR: disk full at step 17",
        f"reports/unit/run.log-{error + 1}-step 400 ok",
    ]  # (error lines first, then the rest in the text's order)
    assert f"reports/unit/run.log:{died}:Traceback: worker 3 died" in out
    assert "reports/unit/run.log:251:step 250 ok" in out and out.index(
        f"reports/unit/run.log:{died}:Traceback: worker 3 died"
    ) < out.index("reports/unit/run.log:251:step 250 ok")
    assert main(["show", bundle_path, "reports/unit/run.log", "--grep", "step", "--max-matches", "5"]) == 0
    out = capsys.readouterr().out
    matches = [line for line in out.splitlines() if line.startswith("reports/unit/run.log:")]
    assert len(matches) == 5 and "ERROR: disk full" in matches[0] and "and 896 more matches" in out
    assert main(["show", bundle_path, "--grep", "no such words here"]) == 1  # (grep's: nothing matched)
    assert main(["show", bundle_path, "--grep", "(unclosed"]) == 2
    assert "is not a regular expression" in capsys.readouterr().err


def test_the_prompt_says_how_to_get_more_only_when_something_was_cut(repo: Repo, tmp_path: Path) -> None:
    from ctxguard.bundle.render import MORE

    cut = tmp_path / "cut.prompt.md"
    repo.write(".ctxguard.yaml", CONFIG.replace("total_budget: 6000", "total_budget: 1500"))
    assert main(["bundle", "--repo", str(repo.path), "--format", "prompt", "--output", str(cut)]) == 0
    assert MORE in cut.read_text() and "offload/" in cut.read_text()
    whole = tmp_path / "whole.prompt.md"
    repo.write("reports/unit/run.log", "one line\n")
    assert main(["bundle", "--repo", str(repo.path), "--format", "prompt", "--output", str(whole)]) == 0
    assert MORE not in whole.read_text()


def test_line_numbers_show_new_file_lines_within_the_budget(tmp_path: Path) -> None:
    from ctxguard.kinds.diff.numbers import new_numbers

    repo = configured(tmp_path / "repo", "version: 1\nartifacts:\n  - {name: diff, budget: 400, line_numbers: true}\n")
    repo.write("app.py", "".join(f"def f{i}():\n    return {i}\n" for i in range(60)))
    repo.commit("more")
    repo.write("app.py", "".join(f"def f{i}():\n    return {i * (2 if i in (5, 40) else 1)}\n" for i in range(60)))
    repo.add("app.py")
    data = _bundle(repo)
    diff = data["artifacts"][0]
    assert independent_count(diff["content"]) == diff["compacted_tokens"] <= diff["budget"] <= 400
    assert diff["tier"] == 1  # its need counted its numbers: whole, numbered
    assert "  12 +    return 10\n" in diff["content"] and "     -    return 5\n" in diff["content"]
    assert new_numbers("@@ -1,2 +7,3 @@\n a\n-b\n+c\n+d\n") == [None, 7, None, 8, 9, None]
    new = (repo.path / "app.py").read_text().splitlines()
    repo.write(".ctxguard.yaml", "version: 1\nartifacts:\n  - {name: diff, budget: 120, line_numbers: true}\n")
    cut = _bundle(repo)["artifacts"][0]
    assert cut["tier"] > 1 and independent_count(cut["content"]) <= cut["budget"]
    shown = [m for m in map(re.compile(r"^ *(\d+) [ +](.*)$").match, cut["content"].splitlines()) if m]
    assert shown and all(new[int(m.group(1)) - 1] == m.group(2) for m in shown)  # the right numbers, past gaps
    assert re.search(r"^\.\.\. \(lines \d+-\d+ omitted\)$", cut["content"], re.M)
    repo.write(".ctxguard.yaml", "version: 1\nartifacts:\n  - {name: diff, budget: 400}\n")
    assert "  12 +" not in _bundle(repo)["artifacts"][0]["content"]
    assert "  12 +    return 10\n" in _bundle(repo, "--line-numbers")["artifacts"][0]["content"]


def test_split_chunks_reviews_a_big_change_in_several_bundles_each_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxguard.config.load import parse_config
    from ctxguard.errors import ConfigError

    repo = configured(
        tmp_path / "repo",
        "version: 1\ntotal_budget: 2500\nartifacts:\n  - {name: diff, budget: 6000, split: chunks}\n"
        "  - {name: plan, paths: [docs/plan.md], budget: 400}\n",
    )
    repo.write("docs/plan.md", "# Plan\n\n- [ ] split the handlers\n")
    for i in range(12):
        repo.write(f"src/m{i:02}.py", "".join(f"def handler_{i}_{j}(request):\n    return {j}\n" for j in range(40)))
    repo.add("src")
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    err = capsys.readouterr().err
    folder = repo.path / ".git/ctxguard"
    parts = sorted(folder.glob("bundle-*.json"))
    assert len(parts) >= 3 and f"part 1 of {len(parts)} of the change" in err
    seen = []
    for k, part in enumerate(parts, 1):
        text = part.read_text()
        data = json.loads(text)
        jsonschema.validate(data, SCHEMA)
        assert data["chunk"] == {"index": k, "of": len(parts)}
        assert independent_count(text) <= 2500  # each bundle within the total
        files = [a for a in data["artifacts"] if a["artifact_name"].startswith("diff:")]
        assert files and all(a["tier"] == 1 for a in files)  # whole files, not cut
        assert any(a["artifact_name"] == "docs/plan.md" for a in data["artifacts"])  # the context, in each
        seen += [a["artifact_name"] for a in files]
    assert seen == [f"diff:src/m{i:02}.py" for i in range(12)]  # every file once, in order
    assert main(["check", "--repo", str(repo.path)]) == 0
    with pytest.raises(ConfigError, match="split: chunks needs a total_budget"):
        parse_config("artifacts:\n  - {name: d, budget: 900, split: chunks}\n")
    with pytest.raises(ConfigError, match="chunks applies to a git diff"):
        parse_config("total_budget: 900\nartifacts:\n  - {name: d, paths: [a], budget: 900, split: chunks}\n")
    assert main(["bundle", "--repo", str(repo.path), "--stdout"]) == 2


def test_the_digest_keeps_to_a_third_of_a_small_total(tmp_path: Path) -> None:
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split()
    lines = [
        f"2024-05-01 10:00:{i % 60:02} ERROR {words[i % 14]} {words[(i * 5) % 14]} failed: {w}\n"
        for i, w in enumerate(words * 4)
    ]
    repo = configured(
        tmp_path / "repo",
        "version: 1\ntotal_budget: 1200\nartifacts:\n  - {name: logs, paths: ['*.log'], budget: 800}\n",
    )
    repo.write("a.log", "".join(lines))
    data = _bundle(repo)
    assert data["totals"]["digest_tokens"] <= 1200 // 3
    assert "more distinct lines" in data["digest"]  # the rest counted
    roomy = _bundle(repo, "--total-budget", "20000")
    assert roomy["totals"]["digest_tokens"] > data["totals"]["digest_tokens"]  # all 30 rows there


def test_show_refuses_an_offload_whose_digest_digits_are_too_few_to_check(tmp_path: Path) -> None:
    from ctxguard.bundle.saved import full_text
    from ctxguard.errors import UsageError
    from ctxguard.record import Offload, Record

    digits = hashlib.sha256(b"whole\n").hexdigest()
    (tmp_path / "offload").mkdir()
    (tmp_path / "offload" / f"{digits[:16]}.log").write_text("whole\n")
    for given, fine in ((digits[:16], True), (digits, True), (digits[:4], False), ("", False)):
        offload = Offload(f"offload/{digits[:16]}.log", given)
        record = Record("x.log", 9, 3, True, "…", "log", 3, 3, "o200k_base", offload=offload)
        if fine:
            assert full_text(record, tmp_path) == "whole\n"
        else:
            with pytest.raises(UsageError):
                full_text(record, tmp_path)


def test_a_shortened_file_list_keeps_the_files_the_content_shows(tmp_path: Path) -> None:
    """Docs come first in diff order but last in a cut: when the fixed part is over the total and
    fewer files are listed, the listed ones are those the content shows, then the others."""
    repo = configured(tmp_path / "repo", "version: 1\ntotal_budget: 900\nartifacts:\n  - {name: diff, budget: 4000}\n")
    for i in range(60):
        repo.write(f"a_docs/page_with_a_long_name_{i}.md", "".join(f"Line {j} of page {i}.\n" for j in range(20)))
    repo.write("src/core.py", "".join(f"def f{j}(x):\n    return x + {j}\n" for j in range(40)))
    repo.add("a_docs", "src")
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) in (0, 1)
    diff = json.loads(out.read_text())["artifacts"][0]
    rows = diff["files"]["rows"]
    assert diff.get("files_not_listed", 0) > 0 and len(rows) + diff["files_not_listed"] == 61
    shown = re.findall(r"^diff --git a/(\S+) ", diff["content"], re.M)
    assert "src/core.py" in shown and set(shown) <= {row[0] for row in rows}


def test_a_cut_diff_lists_its_omitted_files_within_a_quarter_of_its_budget() -> None:
    """The files a cut diff shows are always listed; the ones it omits, source first and the
    larger change first, only while their rows fit in a quarter of the record's budget; the rest
    are counted, and the rows keep diff order."""
    from ctxguard.kinds.registry import KINDS
    from ctxguard.record import Listed
    from ctxguard.records import listing as listed
    from ctxguard.tokens.load import get_tokenizer

    def listing(rows: list[Listed], budget: int, tokenizer: Any) -> tuple[Listed, ...]:
        return listed(rows, budget, tokenizer, KINDS["diff"].row_rank)  # (the diff's order)

    tokenizer = get_tokenizer("o200k_base")
    rows = [Listed(f"docs/page_{i}.md", 40, 2, "modified", "omitted") for i in range(30)]
    rows += [Listed("src/small.py", 1, 1, "modified", "omitted"), Listed("src/big.py", 90, 9, "modified", "omitted")]
    rows += [Listed("src/core.py", 5, 5, "modified", "cut"), Listed("tests/test_core.py", 3, 0, "added", "whole")]
    chosen = listing(rows, 140, tokenizer)  # a quarter: 35 tokens, two rows of about 16
    paths = [r.path for r in chosen]
    # What the content shows, and of the omitted: source before docs (whatever their size), the
    # larger change first; in diff order.
    assert paths == ["src/small.py", "src/big.py", "src/core.py", "tests/test_core.py"]
    omitted = [r for r in chosen if r.shown == "omitted"]
    assert sum(tokenizer.count(json.dumps(r.row(), separators=(",", ":"))) + 1 for r in omitted) <= 140 // 4
    assert [r.path for r in listing(rows, 120, tokenizer)] == ["src/big.py", "src/core.py", "tests/test_core.py"]
    assert listing(rows, 100_000, tokenizer) == tuple(rows)  # room for all: all
    whole = [replace(r, shown="whole") for r in rows]
    assert listing(whole, 10, tokenizer) == tuple(whole)  # nothing omitted: nothing to leave out


@pytest.mark.parametrize(
    ("total", "log_budget", "said"),
    [
        (60000, 600, "raise the budget of logs to keep more"),  # the entry's own budget cut it
        (1500, 4000, "raise total_budget to keep more"),  # the total held it below its own budget
        (60000, 40000, "room to spare: nothing was cut"),
    ],
)
def test_the_usage_line_names_the_knob_that_cut(
    tmp_path: Path, total: int, log_budget: int, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = configured(
        tmp_path / "repo",
        f"version: 1\ntotal_budget: {total}\nfail_on: never\nartifacts:\n"
        f"  - {{name: logs, paths: ['logs/*.log'], budget: {log_budget}}}\n",
    )
    repo.write("logs/run.log", log_of(6000))
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    usage = next(line for line in capsys.readouterr().err.splitlines() if line.startswith("context: "))
    assert said in usage and "GREEN" in usage, usage


def test_one_artifact_is_one_artifact(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--repo", str(repo.path), "--only", "plan"]) == 0
    assert "check passed (1 artifact)" in capsys.readouterr().err
