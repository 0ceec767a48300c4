-- Issue 28: the second ingest phase (chunk and sentence vectors of a `ready` document) is queued
-- again when it dead-letters, a bounded number of rounds (PP_VECTORS_RETRIES). The document says
-- where it stands: `retrying` (a round failed, the next is queued) or `failed` (every round
-- failed: searchable by words only, the previous version keeps answering untagged questions),
-- with the last round's reason. NULL while the phase runs or once it completed.
ALTER TABLE documents
    ADD COLUMN vectors_state text CHECK (vectors_state IN ('retrying', 'failed')),
    ADD COLUMN vectors_error text,
    ADD COLUMN vectors_rounds integer NOT NULL DEFAULT 0;
