-- Model usage (docs/architecture.md §3, table `usage`): one row per LLM call with tokens and cost, for accounting
-- and for the run's totals in its response. The request hash and output let a node that
-- LangGraph re-runs on resume get its earlier answer back instead of paying for a second call.
CREATE TABLE usage (
    id bigserial PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text,
    thread_id text,
    run_id text,
    task text NOT NULL,
    model text NOT NULL,
    input_tokens integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0,
    cost_usd double precision NOT NULL DEFAULT 0,
    request_hash text,
    output text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_run ON usage (run_id, request_hash);
CREATE INDEX usage_tenant_time ON usage (tenant_id, created_at);

ALTER TABLE usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE usage FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON usage USING (tenant_id = pp_tenant()) WITH CHECK (tenant_id = pp_tenant());
