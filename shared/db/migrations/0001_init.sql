-- Foundation schema: tenants, users, sets, documents, chunks, conversations, messages, and the
-- per-run stage log that makes redelivered commands idempotent. Every tenant table has
-- FORCE ROW LEVEL SECURITY; a session without app.tenant_id sees no rows.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE OR REPLACE FUNCTION pp_tenant() RETURNS uuid
LANGUAGE sql STABLE AS $$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::uuid $$;

CREATE OR REPLACE FUNCTION pp_user() RETURNS text
LANGUAGE sql STABLE AS $$ SELECT NULLIF(current_setting('app.user_id', true), '') $$;

CREATE TABLE tenants (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    allowed_domains text[] NOT NULL DEFAULT '{}',
    settings jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id text NOT NULL,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    email text,
    display_name text,
    industry text,
    location text,
    company text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE sets (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    name text NOT NULL,
    color text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, user_id, name)
);

CREATE TABLE documents (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    title text NOT NULL,
    version text NOT NULL DEFAULT '1',
    doc_type text NOT NULL CHECK (doc_type IN ('company_policy', 'regulatory_source', 'knowledge_base')),
    set_id uuid REFERENCES sets(id) ON DELETE SET NULL,
    source_type text NOT NULL DEFAULT 'upload',
    filename text NOT NULL,
    mime text,
    sha256 text NOT NULL,
    byte_size bigint NOT NULL DEFAULT 0,
    page_count int NOT NULL DEFAULT 0,
    chunk_count int NOT NULL DEFAULT 0,
    status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'ready', 'failed')),
    error text,
    object_key text NOT NULL,
    visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'tenant')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- One document per (tenant, owner, content, title, version): re-uploading the same bytes returns it.
CREATE UNIQUE INDEX documents_identity ON documents (tenant_id, user_id, sha256, title, version);
CREATE INDEX documents_owner ON documents (tenant_id, user_id);

CREATE TABLE chunks (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    visibility text NOT NULL DEFAULT 'private',
    document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal int NOT NULL,
    page int NOT NULL,
    char_start int NOT NULL,
    char_end int NOT NULL,
    section text,
    text text NOT NULL,
    embedding vector({{EMBEDDING_DIM}}) NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (document_id, ordinal)
);
CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);

CREATE TABLE conversations (
    thread_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    kind text NOT NULL DEFAULT 'workspace' CHECK (kind IN ('workspace', 'support')),
    title text,
    status text NOT NULL DEFAULT 'idle',
    last_message_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_owner ON conversations (tenant_id, user_id, last_message_at DESC);

CREATE TABLE messages (
    id uuid PRIMARY KEY,
    thread_id uuid NOT NULL REFERENCES conversations(thread_id) ON DELETE CASCADE,
    tenant_id uuid NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    content text NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX messages_thread ON messages (thread_id, created_at);

-- A stage of a run is recorded once done, so a redelivered command does not redo it.
CREATE TABLE run_stages (
    run_id uuid NOT NULL,
    stage text NOT NULL,
    tenant_id uuid NOT NULL,
    thread_id uuid NOT NULL,
    outcome jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, stage)
);

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_self ON tenants USING (id = pp_tenant()) WITH CHECK (id = pp_tenant());

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['users', 'sets', 'conversations', 'messages', 'run_stages'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON %I USING (tenant_id = pp_tenant()) '
            'WITH CHECK (tenant_id = pp_tenant())', t);
    END LOOP;
END $$;

-- Documents and chunks: the tenant, and within it the owner or tenant-visible knowledge.
ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
ALTER TABLE documents FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_owner ON documents
    USING (tenant_id = pp_tenant() AND (user_id = pp_user() OR visibility = 'tenant'))
    WITH CHECK (tenant_id = pp_tenant() AND user_id = pp_user());

ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_owner ON chunks
    USING (tenant_id = pp_tenant() AND (user_id = pp_user() OR visibility = 'tenant'))
    WITH CHECK (tenant_id = pp_tenant() AND user_id = pp_user());
