"""The gateway serves the bus contract integrators read: the generated AsyncAPI document."""

from __future__ import annotations

import pytest

from policypal.asyncapi import asyncapi_document
from shared.config import Settings

pytestmark = pytest.mark.e2e


def test_gateway_serves_the_generated_asyncapi_document(system):
    with system.client() as client:
        response = client.get("/v1/asyncapi.json")
    assert response.status_code == 200
    assert response.json() == asyncapi_document(Settings(subject_prefix="pp", nats_url=None))
