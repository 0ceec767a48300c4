-- Issue 28: with PP_INGEST_READY_AT=words a document is searchable by its words as soon as its
-- chunks are stored, and their vectors follow (services/ingest/completion.py). A chunk without a
-- vector is left out of vector ranks (NULL distance) and found by full-text search meanwhile.
ALTER TABLE chunks ALTER COLUMN embedding DROP NOT NULL;
-- The chunks still waiting for a vector: the completion phase's work list, and how a version is
-- told complete before it replaces the previous one in untagged searches.
CREATE INDEX chunks_without_vector ON chunks (document_id) WHERE embedding IS NULL;
