-- Append-only audit log (docs/architecture.md §3): who did what to whom, per tenant. RLS lets a tenant read and
-- append only its own rows; there is no UPDATE or DELETE policy, and `policypal migrate` revokes
-- both privileges from the app role (shared/db/migrate.py, APPEND_ONLY), so history cannot be
-- rewritten through the application.
CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    actor text NOT NULL,
    action text NOT NULL,
    target text,
    detail jsonb NOT NULL DEFAULT '{}',
    trace_id text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX audit_log_recent ON audit_log (tenant_id, id DESC);

ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_log FORCE ROW LEVEL SECURITY;
CREATE POLICY audit_read ON audit_log FOR SELECT USING (tenant_id = pp_tenant());
CREATE POLICY audit_append ON audit_log FOR INSERT WITH CHECK (tenant_id = pp_tenant());
