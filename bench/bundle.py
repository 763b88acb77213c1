"""What an agent reads: the written bundle's size, the share of it that is content, and what each
artifact kept, for the demo and three real changes, at several total budgets.

    python bench/bundle.py --cases DIR [--corpus CORPUS] [--totals 2000,6000,20000]

DIR is the needle cases (python bench/needles.py build --out DIR); CORPUS the dev corpus
(../shared/corpus/build_dev_corpus.py), for the third change. Each change is a repository with a
diff, test logs, a plan and a JSON report, and the reviewer config of examples/configs. For each
total budget and form (json, markdown, prompt) `ctxguard bundle --stdout` runs once (this
checkout, in a subprocess); printed per run:

    written      tokens of the written bundle (o200k_base, counted by tiktoken directly)
    content      the share of them that is the artifacts' contents and the digest
    util         written / total budget (what the total could hold and does)
    cut          how many records are tier 2 or 3

and, for the json form, per artifact its tier and the probes it kept, and `bare`: the content
share the same bundle would have if every field neither the record contract nor an agent needs
were gone and its tokens went to content (each record's retention, budget, entry, redacted map
and files_not_listed; the offload's sha256 beside a file named by it; null and zero fields of
the head): the ceiling of trimming named records, short of changing their shape.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tiktoken

ROOT = Path(__file__).resolve().parent.parent
FORMS = ("json", "markdown", "prompt")

CONFIG = """\
version: 1
encoding: o200k_base
fail_on: never
artifacts:
  - name: diff
    paths: ["change.diff"]
    type: diff
    budget: 40000
    priority: high
    task: preserve function signatures and error messages
  - name: test-logs
    paths: ["reports/*.log"]
    type: log
    budget: 12000
  - name: plan
    paths: ["docs/plan.md"]
    budget: 6000
  - name: results
    paths: ["build/*.json"]
    budget: 4000
"""

# (name, diff, logs, plan, report): files of the needle cases (or, with "corpus:", the corpus)
CHANGES = (
    (
        "more-itertools",
        "more-itertools-release.diff",
        ("mit-window-step.log",),
        "repo-semver.md",
        "mit-window-step-report.json",
    ),
    (
        "toolz",
        "toolz-release.diff",
        ("toolz-merge-sorted.log",),
        "repo-cloudevents-spec.md",
        "toolz-merge-sorted-report.json",
    ),
    (
        "attrs",
        "corpus:diff/attrs-23.1.0..23.2.0.diff",
        ("corpus:log/pytest-urllib3-1.26.18.log", "simplejson-speedups-warnings.log"),
        "corpus:markdown/attrs-23.2.0-docs_examples.md",
        "mit-empty-window-report.json",
    ),
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build_change(
    repo: Path, cases: Path, corpus: Path | None, diff: str, logs: tuple[str, ...], plan: str, report: str
) -> None:
    def src(name: str) -> Path:
        if name.startswith("corpus:"):
            if corpus is None:
                raise SystemExit(f"{name} needs --corpus")
            return corpus / name.removeprefix("corpus:")
        return cases / name

    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "reports").mkdir()
    (repo / "docs").mkdir()
    (repo / "build").mkdir()
    shutil.copy(src(diff), repo / "change.diff")
    for log in logs:
        shutil.copy(src(log), repo / "reports" / Path(log).name)
    shutil.copy(src(plan), repo / "docs/plan.md")
    shutil.copy(src(report), repo / "build/report.json")
    (repo / ".ctxguard.yaml").write_text(CONFIG)


def build_demo(repo: Path) -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    import demo  # examples/demo.py: its repository, at its own total budget

    demo.build(repo)


def run(repo: Path, form: str, total: int, split: Path) -> tuple[str, list[dict[str, object]]] | None:
    shutil.rmtree(split, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "ctxguard", "bundle", "--stdout", "--format", form]
        + ["--total-budget", str(total), "--split", str(split)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return None
    records = [json.loads(p.read_text()) for p in sorted(split.glob("*.json"))]
    return done.stdout, records


def digest_of(text: str, form: str) -> str:
    """The digest in a written bundle."""
    if form == "json":
        digest = json.loads(text)["digest"]
        return str(digest["content"] if isinstance(digest, dict) else digest)
    start = text.find("## Digest")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


_NOT_NEEDED = ("retention", "budget", "entry", "redacted", "files_not_listed")


def bare_share(text: str, content: int, enc: tiktoken.Encoding) -> float:
    """The content share of a json bundle with the fields an agent does not need gone, their
    tokens given to content (both sizes counted in one compact form)."""

    def size(data: object) -> int:
        return len(enc.encode(json.dumps(data, ensure_ascii=False, separators=(",", ":")), disallowed_special=()))

    bundle = json.loads(text)
    before = size(bundle)
    for key in [k for k, v in bundle.items() if v is None]:
        del bundle[key]
    for key in ("source", "totals"):
        if isinstance(bundle.get(key), dict):
            bundle[key] = {k: v for k, v in bundle[key].items() if v}
    for record in bundle["artifacts"]:
        for key in _NOT_NEEDED:
            record.pop(key, None)
        if record.get("offload"):
            record["offload"] = {"path": record["offload"]["path"]}
    saved = before - size(bundle)
    written = len(enc.encode(text, disallowed_special=()))
    return (content + saved) / written


def _kept(record: dict[str, object]) -> str:
    kept = record.get("retention") or {}
    assert isinstance(kept, dict)
    return f"{record['artifact_name']}: {record['tier']}, {kept.get('kept', '-')}/{kept.get('probes', '-')}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, required=True, help="the needle cases (bench/needles.py build)")
    parser.add_argument("--corpus", type=Path, help="the dev corpus, for the attrs change")
    parser.add_argument("--totals", default="2000,6000,20000")
    args = parser.parse_args()
    enc = tiktoken.get_encoding("o200k_base")
    totals = [int(t) for t in args.totals.split(",")]
    print("| change | total | form | written | content | bare | util | cut | per artifact (json): tier, probes kept |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="ctxguard-bench-bundle-") as tmp:
        repos = {"demo": Path(tmp) / "demo"}
        build_demo(repos["demo"])
        for name, *files in CHANGES:
            repos[name] = Path(tmp) / name
            build_change(repos[name], args.cases, args.corpus, *files)  # type: ignore[arg-type]
        for name, repo in repos.items():
            for total in totals:
                for form in FORMS:
                    done = run(repo, form, total, Path(tmp) / "split")
                    if done is None:
                        print(f"| {name} | {total} | {form} | n/a | | | | | |")
                        continue
                    text, records = done
                    written = len(enc.encode(text, disallowed_special=()))
                    content = sum(int(r["compacted_tokens"]) for r in records)  # type: ignore[call-overload]
                    content += len(enc.encode(digest_of(text, form), disallowed_special=()))
                    cut = sum(1 for r in records if r["truncated"] or r.get("tier", 0) == 2)
                    per, bare = "", ""
                    if form == "json":
                        bare = f"{bare_share(text, content, enc):.0%}"
                        bundle = json.loads(text)
                        per = "; ".join(_kept(a) for a in bundle["artifacts"])
                        cut = sum(1 for a in bundle["artifacts"] if a["tier"] > 1)
                    print(
                        f"| {name} | {total} | {form} | {written} | {content / written:.0%} | {bare} | "
                        f"{written / total:.2f} | {cut}/{len(records)} | {per} |"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
