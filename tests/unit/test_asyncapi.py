"""The AsyncAPI document is generated from the workers' routers and kept in docs/ verbatim."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import yaml

from policypal.asyncapi import asyncapi_document, asyncapi_yaml
from shared.config import Settings
from shared.contracts import ActionCommand, ChatCommand, IngestCommand, ResumeCommand, SearchRequest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "asyncapi.yaml"
SETTINGS = Settings(subject_prefix="pp", nats_url=None)

SUBJECTS = {
    "pp.cmd.chat": ChatCommand,
    "pp.cmd.resume": ResumeCommand,
    "pp.cmd.action.summarize": ActionCommand,
    "pp.cmd.action.inquire": ActionCommand,
    "pp.cmd.action.compare": ActionCommand,
    "pp.cmd.action.audit": ActionCommand,
    "pp.cmd.ingest": IngestCommand,
    "pp.rpc.retrieval.search": SearchRequest,
    "pp.rpc.retrieval.sample": None,
    "pp.evt.thread.{thread_id}": None,
    "pp.evt.ingest.{document_id}": None,
    "pp.dlq.{kind}": None,
}


def test_checked_in_document_is_the_generated_one():
    assert DOCS.read_text() == asyncapi_yaml(SETTINGS), "run `policypal asyncapi --yaml > docs/asyncapi.yaml`"


def test_every_subject_is_described_with_its_contract_schema():
    document = asyncapi_document(SETTINGS)
    assert document["asyncapi"] == "3.0.0"
    channels = {c["address"]: c for c in document["channels"].values()}
    assert set(SUBJECTS) <= set(channels)
    schemas = document["components"]["schemas"]
    messages = document["components"]["messages"]
    for subject, model in SUBJECTS.items():
        channel = channels[subject]
        assert channel["description"], subject
        [ref] = [m["$ref"] for m in channel["messages"].values()]
        payload_ref = messages[unquote(ref.rsplit("/", 1)[1])]["payload"]["$ref"]
        schema = schemas[unquote(payload_ref.rsplit("/", 1)[1])]
        if model is not None:
            assert set(schema["properties"]) == set(model.model_json_schema()["properties"]), subject
    assert channels["pp.rpc.retrieval.search"]["bindings"]["nats"]["queue"] == "retrieval"
    thread_events = schemas["pp.evt.thread.{thread_id}:Message:Payload"]
    assert {"TokenEvent", "ResponseEvent", "ErrorEvent"} <= {
        r["$ref"].rsplit("/", 1)[1] for r in thread_events["oneOf"]
    }


def test_yaml_round_trips_to_the_json_document():
    assert yaml.safe_load(asyncapi_yaml(SETTINGS)) == asyncapi_document(SETTINGS)
