"""The OpenAPI document states what each route can answer (schemathesis checks it in tests/e2e)."""

from __future__ import annotations

from services.gateway.app import create_app
from shared.config import Settings


def test_an_upload_of_a_file_already_in_the_library_documents_its_409():
    # The fuzzer's stateful run uploads the same bytes under two titles: the 409 it got was undocumented.
    spec = create_app(Settings(subject_prefix="pp", nats_url=None)).openapi()
    answers = spec["paths"]["/v1/documents"]["post"]["responses"]
    assert "duplicate_document" in answers["409"]["description"]
    assert answers["409"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
