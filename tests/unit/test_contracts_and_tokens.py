"""Wire contracts reject bad payloads precisely; tokens are verified strictly."""

from __future__ import annotations

import time
import uuid

import jwt
import pytest
from pydantic import ValidationError

from services.retrieval.search import sample_ordinals
from shared.auth.tokens import InvalidToken, mint_token, verify_token
from shared.bus.subjects import Subjects
from shared.contracts import ChatCommand, Scope, SearchRequest, parse_thread_event
from shared.contracts.api import ChatRequest
from shared.text.extracts import mmr
from shared.text.quotes import quote_of
from shared.text.sentences import split_sentences

SECRET = "unit-secret-0123456789abcdef0123456789"


def test_chat_request_limits():
    with pytest.raises(ValidationError) as info:
        ChatRequest(message="x" * 8001)
    assert info.value.errors()[0]["loc"] == ("message",)
    with pytest.raises(ValidationError):
        ChatRequest(message="hi", tagged_doc_ids=[uuid.uuid4() for _ in range(6)])
    with pytest.raises(ValidationError):
        ChatRequest(message="hi", surprise=True)


def test_commands_carry_the_envelope():
    cmd = ChatCommand(tenant_id=uuid.uuid4(), user_id="u", thread_id=uuid.uuid4(), message="hello")
    assert cmd.schema_version == 1 and cmd.run_id and cmd.issued_at.tzinfo is not None
    with pytest.raises(ValidationError):
        SearchRequest(tenant_id=uuid.uuid4(), user_id="u")  # neither text nor embedding


def test_a_row_search_names_its_scope_and_the_rest_of_a_table_comes_with_rows_only():
    ids = {"tenant_id": uuid.uuid4(), "user_id": "u", "query_text": "net sales"}
    assert SearchRequest(**ids, scope=Scope(doc_ids=[uuid.uuid4()]), rows=True, neighbours=True).neighbours
    assert SearchRequest(**ids, scope=Scope(set_id=uuid.uuid4()), rows=True).rows
    with pytest.raises(ValidationError, match="scope of documents or a set"):
        SearchRequest(**ids, rows=True)
    with pytest.raises(ValidationError, match="set rows too"):
        SearchRequest(**ids, scope=Scope(doc_ids=[uuid.uuid4()]), neighbours=True)


def test_thread_events_are_discriminated_by_type():
    ids = {"thread_id": str(uuid.uuid4()), "run_id": str(uuid.uuid4())}
    event = parse_thread_event(
        '{{"type": "status", "node": "inquire", "message": "m", "thread_id": "{}", "run_id": "{}"}}'.format(
            ids["thread_id"], ids["run_id"]
        )
    )
    assert event.type == "status" and event.node == "inquire"
    with pytest.raises(ValidationError):
        parse_thread_event('{"type": "telepathy"}')


def test_subjects_follow_the_prefix():
    s = Subjects("acme")
    assert s.commands_stream == "ACME_COMMANDS" and s.cmd_action("audit") == "acme.cmd.action.audit"
    assert s.evt_thread("t1") == "acme.evt.thread.t1" and s.uploads_bucket == "acme-uploads"


def test_tokens_round_trip_and_fail_precisely():
    tenant = uuid.uuid4()
    principal = verify_token(SECRET, mint_token(SECRET, tenant_id=tenant, sub="alice"))
    assert principal.tenant_id == tenant and principal.user_id == "alice" and principal.role == "user"
    with pytest.raises(InvalidToken, match="expired"):
        verify_token(SECRET, mint_token(SECRET, tenant_id=tenant, sub="a", ttl_s=-120))
    with pytest.raises(InvalidToken, match="invalid token"):
        verify_token("another-secret-0123456789abcdef012345", mint_token(SECRET, tenant_id=tenant, sub="a"))
    no_exp = jwt.encode({"sub": "a", "role": "user", "tenant_id": str(tenant)}, SECRET, algorithm="HS256")
    with pytest.raises(InvalidToken, match="exp"):
        verify_token(SECRET, no_exp)
    bad_role = jwt.encode({"sub": "a", "role": "root", "tenant_id": str(tenant), "exp": int(time.time()) + 60}, SECRET)
    with pytest.raises(InvalidToken, match="role"):
        verify_token(SECRET, bad_role)


@pytest.mark.parametrize(("count", "expected"), [(0, 0), (5, 5), (40, 10), (100, 18), (1000, 30)])
def test_stratified_sample_sizes(count, expected):
    ordinals = sample_ordinals(count)
    assert len(ordinals) == expected and ordinals == sorted(set(ordinals))
    assert all(0 <= o < count for o in ordinals)
    if count >= 40:
        assert ordinals[0] < count // 10 and ordinals[-1] > count * 9 // 10  # spread over the whole length


def test_sentences_and_quotes():
    text = "1. Scope\nThis policy applies to everyone at the company.\nIt is reviewed yearly by the owner. Ok."
    assert split_sentences(text) == [
        "This policy applies to everyone at the company.",
        "It is reviewed yearly by the owner.",
    ]
    # An initial or a title ends no sentence; an abbreviation's last letter may.
    named = "I, Jane R. Doe, certify that the report complies. Mr. Doe signed it on the date hereof."
    assert split_sentences(named) == [
        "I, Jane R. Doe, certify that the report complies.",
        "Mr. Doe signed it on the date hereof.",
    ]
    assert split_sentences("Most of the sales were made in the U.S. The rest were made in Europe and Asia.") == [
        "Most of the sales were made in the U.S.",
        "The rest were made in Europe and Asia.",
    ]
    long = ["word " * 100]
    assert len(quote_of(long)) <= 300 and quote_of(long).endswith("…")


def test_mmr_prefers_diverse_picks():
    import numpy as np

    query = np.array([1.0, 0.0, 0.0])
    vectors = np.array([[0.99, 0.14, 0.0], [0.99, 0.14, 0.0], [0.8, 0.0, 0.6]])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert mmr(query, vectors, 2, lam=0.5) == [0, 2]


def test_nul_characters_are_refused_at_the_boundary():
    from shared.contracts.api import SetCreate

    with pytest.raises(ValidationError, match="NUL"):
        SetCreate(name="a\x00b")
    with pytest.raises(ValidationError) as info:
        ChatRequest(message="hi", tiptap_json={"type": "doc", "content": [{"text": "x\x00"}]})
    assert info.value.errors()[0]["loc"] == ("tiptap_json",)
