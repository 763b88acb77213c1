from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxguard.budget import ORDER, Request, allocate
from ctxguard.errors import ConfigError
from ctxguard.main import main
from tests.conftest import SAMPLES
from tests.gitrepo import configured
from tests.helpers import independent_count


def test_a_budget_is_a_cap_other_entries_surplus_does_not_raise_it() -> None:
    requests = [Request(1000, 200, group="a"), Request(1000, 1500, group="b"), Request(500, 400, group="c")]
    assert allocate(requests) == [200, 1000, 400]


def test_share_surplus_opts_in_to_other_entries_unused_budget() -> None:
    requests = [
        Request(1000, 200, group="a"),
        Request(1000, 1500, group="b", shares=True),
        Request(500, 400, group="c"),
    ]
    # 800 spare from the first and 100 from the third go to the second, which needs 500 more.
    assert allocate(requests) == [200, 1500, 400]


def test_files_of_one_entry_pass_surplus_among_themselves_within_its_budget() -> None:
    # Three logs of one entry (budget 3000, 1000 each); another entry has 900 spare.
    requests = [
        Request(1000, 100, group="logs"),
        Request(1000, 5000, group="logs"),
        Request(1000, 1500, group="logs"),
        Request(1000, 100, group="plan"),
    ]
    out = allocate(requests)
    assert out[0] == 100 and out[3] == 100
    assert sum(out[:3]) == 3000  # the entry's 900 spare moved inside it, the plan's did not
    assert out[1] > 1000 and out[2] > 1000


def test_surplus_runs_out_and_is_shared_by_deficit() -> None:
    requests = [Request(1000, 100), Request(1000, 2000, shares=True), Request(1000, 3000, shares=True)]
    out = allocate(requests)
    assert out[0] == 100 and sum(out) == 3000
    assert out[1] == 1000 + 900 * 1000 // 3000 and out[2] == 1000 + 900 * 2000 // 3000


def test_total_caps_and_priority_scales() -> None:
    requests = [Request(6000, 10**6, "high"), Request(6000, 10**6, "normal"), Request(6000, 10**6, "low")]
    out = allocate(requests, total=9000)
    assert sum(out) <= 9000
    assert out[0] > out[1] > out[2]


def test_high_priority_capped_at_its_ask_rest_shared() -> None:
    # Shares are by priority (4 high, 2 normal): 3333 and 1666; the high one is capped at its
    # budget, and what it leaves goes to the other.
    requests = [Request(2000, 10**6, "high"), Request(4000, 10**6, "normal")]
    assert allocate(requests, total=5000) == [2000, 3000]


def test_small_artifacts_are_kept_whole_before_big_ones_are_cut() -> None:
    # A 404-token plan (high) and ten logs of 3,000 tokens sharing one entry, in a total of 8,000.
    requests = [Request(6000, 404, "high", group="plan")] + [Request(1200, 3000, group="logs")] * 10
    out = allocate(requests, total=8000)
    assert out[0] == 404 and sum(out) <= 8000
    assert len(set(out[1:])) == 1  # the logs share what is left alike


def test_high_priority_is_never_cut_while_a_normal_one_keeps_more_than_its_share() -> None:
    requests = [Request(10_000, 6000, "high"), Request(10_000, 500), Request(10_000, 6000)]
    out = allocate(requests, total=6000)
    assert out[1] == 500  # within its share: whole
    high, normal = out[0], out[2]
    assert high < 6000 and high == 2 * normal  # both cut: shares 4 : 2


def test_margin_scales_every_budget_and_the_total() -> None:
    requests = [Request(1000, 10**6), Request(1000, 10**6)]
    assert allocate(requests, margin=0.8) == [800, 800]
    assert sum(allocate(requests, total=1000, margin=0.8)) <= 800


def test_deterministic() -> None:
    requests = [Request(700 + i * 13, 900 + i * 31, ("low", "normal", "high")[i % 3]) for i in range(20)]
    assert allocate(requests, total=9000) == allocate(requests, total=9000)


def test_total_too_small_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="raise total_budget"):
        allocate([Request(100, 100)] * 5, total=100)


@given(
    st.lists(
        st.tuples(
            st.integers(32, 5000), st.integers(0, 20000), st.sampled_from(ORDER), st.sampled_from("abc"), st.booleans()
        ),
        min_size=1,
        max_size=12,
    ),
    st.one_of(st.none(), st.integers(400, 60000)),
)
def test_no_artifact_passes_its_cap_nor_an_entry_its_budget(
    rows: list[tuple[int, int, str, str, bool]], total: int | None
) -> None:
    requests = [Request(budget, need, priority, group, shares) for budget, need, priority, group, shares in rows]
    try:
        out = allocate(requests, total=total)
    except ConfigError:
        return
    for group in "abc":
        members = [i for i, r in enumerate(requests) if r.group == group]
        if not any(requests[i].shares for i in members):
            assert sum(out[i] for i in members) <= sum(max(32, requests[i].budget) for i in members)
    for i, r in enumerate(requests):
        assert out[i] >= 32
        if not r.shares and all(q.group != r.group or q is r for q in requests):
            assert out[i] <= max(32, r.budget)
    if total is not None:
        assert sum(out) <= total


def test_a_budget_holds_in_a_bundle_and_over_budget_fails_when_raw_exceeds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from ctxguard.main import main
    from tests.gitrepo import configured

    config = (
        "version: 1\nfail_on: over_budget\nartifacts:\n  - {name: diff, budget: 300}\n"
        "  - {name: log, paths: [ci.log], budget: 5000}\n"
    )
    repo = configured(tmp_path / "repo", config)
    repo.write("ci.log", "INFO ok\n")
    repo.write("app.py", "".join(f"def handler_{i}(request):\n    return respond({i}, request)\n" for i in range(150)))
    repo.add("app.py")
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out), "--check"]) == 1
    diff = json.loads(out.read_text())["artifacts"][0]
    assert diff["budget"] == 300 and diff["compacted_tokens"] <= 300 < diff["raw_tokens"]
    assert f"diff is over budget: {diff['raw_tokens']} raw tokens for a budget of 300" in capsys.readouterr().err
    repo.write(".ctxguard.yaml", config.replace("budget: 300}", "budget: 300, share_surplus: true}"))
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 0
    shared = json.loads(out.read_text())["artifacts"][0]
    assert shared["budget"] > 300 and shared["compacted_tokens"] > 300  # the log's unused budget


# --- property: a written bundle never goes over its total ------------------------------------
_REAL = sorted(p.name for p in (SAMPLES).iterdir() if p.is_file() and p.suffix in (".log", ".md", ".json", ".diff"))


@settings(max_examples=25, deadline=None)
@given(
    names=st.lists(st.sampled_from(_REAL), min_size=1, max_size=6, unique=True),
    budgets=st.lists(st.integers(32, 3000), min_size=6, max_size=6),
    total=st.integers(100, 6000),
    fmt=st.sampled_from(["json", "markdown", "prompt"]),
)
def test_a_written_bundle_keeps_to_its_total_or_nothing_is_written(
    names: list[str], budgets: list[int], total: int, fmt: str
) -> None:
    """Random real artifacts, budgets and totals: the file written counts at most total_budget
    (exactly, with tiktoken), or the run fails (exit 2) saying the total it needs, and writes
    nothing."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        entries = "".join(
            f"  - {{name: a{i}, paths: ['{name}'], budget: {budget}}}\n"
            for i, (name, budget) in enumerate(zip(names, budgets))
        )
        repo = configured(
            Path(folder) / "repo", f"version: 1\ntotal_budget: {total}\nfail_on: never\nartifacts:\n{entries}"
        )
        for name in names:
            shutil.copy(SAMPLES / name, repo.path / name)
        out = Path(folder) / f"bundle.{fmt}"
        code = main(["bundle", "--repo", str(repo.path), "--format", fmt, "--output", str(out)])
        if code == 2:
            assert not out.exists()
        else:
            assert code == 0 and independent_count(out.read_text()) <= total


def test_a_total_too_small_for_the_bundles_own_fields_fails_and_says_what_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [
        "pytest-failure.log",
        "plan-with-tables.md",
        "json-report-failures.json",
        "rfc2119-spec.md",
        "traceback.log",
    ]
    entries = "".join(f"  - {{name: a{i}, paths: ['{name}'], budget: 2000}}\n" for i, name in enumerate(names))
    repo = configured(tmp_path / "repo", f"version: 1\ntotal_budget: 719\nfail_on: never\nartifacts:\n{entries}")
    for name in names:
        shutil.copy(SAMPLES / name, repo.path / name)
    out = tmp_path / "bundle.json"
    from ctxguard import collect, pipeline

    collected: list[int] = []  # (the least total is searched over what was collected once)

    def counted(*args: object, **kwargs: object) -> object:
        collected.append(1)
        return collect.collect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "collect", counted)
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 2
    assert len(collected) == 1
    err = capsys.readouterr().err
    assert "total_budget 719 cannot hold this bundle" in err and not out.exists()
    least = int(err.split("raise total_budget to ")[1].split(" ")[0].replace(",", ""))
    config = (repo.path / ".ctxguard.yaml").read_text().replace("total_budget: 719", f"total_budget: {least}")
    (repo.path / ".ctxguard.yaml").write_text(config)
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 0  # what it said fits
    assert independent_count(out.read_text()) <= least
    assert main(["check", "--repo", str(repo.path)]) == 0
