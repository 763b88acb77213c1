"""An agent-shaped scenario over `ctxguard mcp`: a bundle at 5 % of a real test log, then a
scripted MCP client (the SDK's own, over stdio) that recovers what the cut lost in at most three
calls. Needs the mcp extra.

    python bench/needles.py build --out DIR ...   # the pytest-log cases and their needles
    python bench/agent_recovery.py --cases DIR [--ratio 0.05]

The three calls, as an agent would make them after reading the prompt form's "how to get more":
1. read_artifact(name): the record as the bundle holds it;
2. search(every error line: `E ` lines, `path.py:N: Error` locations, FAILED/ERROR lines, the
   run's summary), no context;
3. read_artifact(name, lines around the first `E ` line call 2 found: 20 before, 5 after).
A needle counts as recovered when an answer holds it (white space squeezed, as needles.py
compares). Prints, per log: needles, lost by the cut, recovered, and the tokens each call
returned; then the totals.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ERRORS = (
    r"^E |^\S+\.py:\d+: \w+(Error|Exception|Failure|Exit)\b|^(FAILED|ERROR) "
    r"|^=+ .*\b(failed|passed|error)\b.* in [\d.]+s"
)


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _repo(where: Path, log: Path, budget: int) -> str:
    """A repository holding the log, bundled at `budget`; the log's artifact name."""
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    (where / "ci").mkdir()
    shutil.copyfile(log, where / "ci" / log.name)
    config = f"version: 1\nartifacts:\n  - {{name: log, paths: ['ci/*'], type: log, budget: {budget}}}\n"
    (where / ".ctxguard.yaml").write_text(config)
    run = [sys.executable, "-m", "ctxguard", "bundle", "--repo", str(where), "--diff", "worktree"]
    subprocess.run(run, check=True, capture_output=True)
    return f"ci/{log.name}"


async def _agent(where: Path, name: str) -> list[tuple[str, str]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "ctxguard", "mcp", "--repo", str(where)])
    answers: list[tuple[str, str]] = []
    async with Client(params) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(tool, arguments)
            text = "".join(getattr(part, "text", "") for part in result.content)
            answers.append((f"{tool}({json.dumps(arguments)[:60]})", text))
            return text

        await call("read_artifact", {"name": name, "max_tokens": 100_000})
        errors = await call(
            "search", {"pattern": ERRORS, "name": name, "context": 0, "max_tokens": 6000, "max_matches": 1000}
        )
        first = re.search(r":(\d+):E ", errors)
        if first:
            line = int(first.group(1))
            around = f"{max(1, line - 20)}-{line + 5}"
            await call("read_artifact", {"name": name, "lines": around, "max_tokens": 2000})
    return answers


def main() -> int:
    import anyio

    from ctxguard.tokens.load import get_tokenizer

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, required=True, help="a folder bench/needles.py build wrote")
    parser.add_argument("--ratio", type=float, default=0.05)
    args = parser.parse_args()
    count = get_tokenizer("o200k_base").count
    totals = {"needles": 0, "lost": 0, "recovered": 0, "tokens": [0, 0, 0], "calls": 0}
    print(f"{'log':<44} {'needles':>7} {'lost':>5} {'back':>5}  tokens returned by calls 1 / 2 / 3")
    for meta in sorted(args.cases.glob("*.needles.json")):
        data = json.loads(meta.read_text())
        if data["family"] != "pytest-log":
            continue
        log = meta.with_name(meta.name[: -len(".needles.json")])
        budget = max(64, int(count(log.read_text(encoding="utf-8")) * args.ratio))
        with tempfile.TemporaryDirectory() as folder:
            where = Path(folder) / "repo"
            name = _repo(where, log, budget)
            bundle = json.loads((where / ".git/ctxguard/bundle.json").read_text())
            content = next(r["content"] for r in bundle["artifacts"] if r["artifact_name"] == name)
            answers = anyio.run(_agent, where, name)
        kept = _squeeze(content)
        lost = [n for n in data["needles"] if _squeeze(n) not in kept]
        seen = _squeeze("\n".join(text for _, text in answers))
        back = [n for n in lost if _squeeze(n) in seen]
        tokens = [count(text) for _, text in answers] + [0] * (3 - len(answers))
        totals["needles"] += len(data["needles"])
        totals["lost"] += len(lost)
        totals["recovered"] += len(back)
        totals["calls"] += len(answers)
        totals["tokens"] = [a + b for a, b in zip(totals["tokens"], tokens)]
        print(
            f"{log.name[:44]:<44} {len(data['needles']):>7} {len(lost):>5} {len(back):>5}  "
            f"{tokens[0]:>6} / {tokens[1]:>5} / {tokens[2]:>5}   (budget {budget})"
        )
        for needle in [n for n in lost if n not in back][:3]:
            print(f"      not recovered: {needle[:100]}")
    t = totals["tokens"]
    print(
        f"all: {totals['needles']} needles, {totals['lost']} lost by the cut at {args.ratio:.0%}, "
        f"{totals['recovered']} recovered within 3 calls ({totals['calls']} calls); tokens returned: "
        f"{t[0]:,} (the records) + {t[1]:,} (error-line searches) + {t[2]:,} (lines around the first error)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
