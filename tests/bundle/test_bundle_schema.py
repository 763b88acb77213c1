"""The bundle's JSON Schema and its typed model agree, field for field."""

from __future__ import annotations

import dataclasses
import json

from ctxguard.bundle import model as bundle
from ctxguard.collect import Source
from ctxguard.record import Listed, Offload, Record, Referenced
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())


def _fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_the_schema_names_exactly_the_models_fields() -> None:
    top = SCHEMA["properties"]
    sample = bundle.build(
        [Record("a", 1, 1, False, "x", "text", 1, 32, "o200k_base")],
        source=Source("r", None, None, None),
        encoding="o200k_base",
        total_budget=None,
        digest="",
        digest_tokens=0,
    )
    assert set(sample.to_dict()) == set(top) - {"links"} == set(SCHEMA["required"])  # (links: when there are failures)
    assert (
        "links"
        in bundle.build(
            [],
            source=Source("r", None, None, None),
            encoding="o200k_base",
            total_budget=None,
            digest="",
            digest_tokens=0,
            links=({"test": "t", "cause": "c", "artifact": None, "change": None, "definition": None, "by": None},),
        ).to_dict()
    )
    assert _fields(bundle.Totals) == set(top["totals"]["properties"]) == set(top["totals"]["required"])
    assert _fields(bundle.Usage) == set(top["usage"]["properties"]) == set(top["usage"]["required"])
    assert _fields(Source) == set(top["source"]["properties"])
    assert _fields(bundle.Chunk) == set(top["chunk"]["properties"])
    record = SCHEMA["$defs"]["record"]["properties"]
    assert _fields(Record) - {"empty", "omitted"} == set(record)  # (empty, omitted: what the content says)
    assert [f.name for f in dataclasses.fields(Listed)] == record["files"]["properties"]["columns"]["const"]
    assert _fields(Offload) == set(record["offload"]["properties"])
    assert _fields(Referenced) == set(record["reference"]["properties"])


def test_a_bundle_reads_back_as_the_same_bundle() -> None:
    record = Record(
        "d",
        90,
        40,
        True,
        "x\n... (lines 2-9 omitted)\n",
        "diff",
        3,
        40,
        "o200k_base",
        task="t",
        notes=("n",),
        retention={"probes": 2, "kept": 1},
        entry="diff",
        diff="staged",
        files=(Listed("a.py", 1, 2, "modified", "cut"),),
        offload=Offload("offload/0123456789abcdef.diff", "0" * 64),
        redacted=(("token", 1),),
    )
    built = bundle.build(
        [record],
        source=Source("r", "h", None, "staged"),
        encoding="o200k_base",
        total_budget=900,
        digest="d",
        digest_tokens=1,
    )
    assert bundle.Bundle.from_dict(json.loads(bundle.dumps(built))) == built
