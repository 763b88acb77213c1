from __future__ import annotations

import pytest

from ctxguard.budget import Request, allocate
from ctxguard.errors import ConfigError


def test_without_total_each_keeps_its_budget_and_surplus_moves_on() -> None:
    requests = [Request(1000, 200), Request(1000, 1500), Request(500, 400)]
    # 800 spare from the first and 100 from the third go to the second, which needs 500 more.
    assert allocate(requests) == [200, 1500, 400]


def test_surplus_runs_out_and_is_shared_by_deficit() -> None:
    requests = [Request(1000, 100), Request(1000, 2000), Request(1000, 3000)]
    out = allocate(requests)
    assert out[0] == 100 and sum(out) == 3000
    assert out[1] == 1000 + 900 * 1000 // 3000 and out[2] == 1000 + 900 * 2000 // 3000


def test_total_caps_and_priority_scales() -> None:
    requests = [Request(6000, 10**6, "high"), Request(6000, 10**6, "normal"), Request(6000, 10**6, "low")]
    out = allocate(requests, total=9000)
    assert sum(out) <= 9000
    assert out[0] > out[1] > out[2]


def test_high_priority_capped_at_its_ask_rest_shared() -> None:
    # Weights are budget x priority (4 high, 2 normal): 8000 each, so 2500 each before capping.
    requests = [Request(2000, 10**6, "high"), Request(4000, 10**6, "normal")]
    assert allocate(requests, total=5000) == [2000, 3000]


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
