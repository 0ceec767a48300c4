-- Sentence vectors computed once at ingest (issue 15): the offline engine ranks the sentences of
-- retrieved chunks at every question, and embedding them then cost most of a turn. Keyed by the
-- SHA-256 of the sentence text as the engine splits it, so a lookup needs no chunk ids and a
-- changed splitter only misses (and embeds the new sentences live) instead of answering wrongly.
-- Rows belong to their document (deleted with it) and are visible exactly like its chunks.
CREATE TABLE sentence_vectors (
    document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    visibility text NOT NULL DEFAULT 'private',
    model text NOT NULL,
    text_sha256 bytea NOT NULL,
    embedding vector({{EMBEDDING_DIM}}) NOT NULL,
    PRIMARY KEY (document_id, text_sha256)
);
CREATE INDEX sentence_vectors_lookup ON sentence_vectors (tenant_id, text_sha256);

ALTER TABLE sentence_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE sentence_vectors FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_owner ON sentence_vectors
    USING (tenant_id = pp_tenant() AND (user_id = pp_user() OR visibility = 'tenant'))
    WITH CHECK (tenant_id = pp_tenant() AND user_id = pp_user());
