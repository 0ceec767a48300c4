-- Support widget (docs/architecture.md §8): tickets (one per widget conversation; id = thread id) and the
-- tenant's semantic answer cache. A cache entry remembers the tenant's knowledge version it was
-- answered from; lookups only accept the current version, so new or removed knowledge retires
-- every older answer at once.
CREATE TABLE tickets (
    id uuid PRIMARY KEY REFERENCES conversations(thread_id) ON DELETE CASCADE,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    number bigserial,
    customer_sub text NOT NULL,
    origin text,
    status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending_human', 'resolved')),
    question text,
    human_answer text,
    resolved_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tickets_queue ON tickets (tenant_id, status, updated_at);

CREATE TABLE answer_cache (
    id bigserial PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    question text NOT NULL,
    embedding vector({{EMBEDDING_DIM}}) NOT NULL,
    answer text NOT NULL,
    citations jsonb NOT NULL DEFAULT '[]',
    corpus_version text NOT NULL,
    source text NOT NULL DEFAULT 'model' CHECK (source IN ('model', 'human')),
    hits integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX answer_cache_lookup ON answer_cache (tenant_id, corpus_version);

ALTER TABLE tickets ENABLE ROW LEVEL SECURITY;
ALTER TABLE tickets FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tickets USING (tenant_id = pp_tenant()) WITH CHECK (tenant_id = pp_tenant());
ALTER TABLE answer_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE answer_cache FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON answer_cache USING (tenant_id = pp_tenant()) WITH CHECK (tenant_id = pp_tenant());
