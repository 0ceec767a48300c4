-- The LangGraph Agent Server surface (/lg): thread metadata the clients search on, and runs.
-- A run row is written by the gateway when a client starts a run and finished by the worker that
-- publishes the run's terminal event (same transaction as releasing the thread), so its status is
-- right whether or not a client is still connected. An enqueued run keeps its command here until
-- the thread is free; whoever frees the thread (worker or gateway) starts the oldest one.
ALTER TABLE conversations ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';

CREATE TABLE lg_runs (
    run_id uuid PRIMARY KEY,
    thread_id uuid NOT NULL REFERENCES conversations(thread_id) ON DELETE CASCADE,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    assistant_id text NOT NULL,
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'running', 'success', 'error', 'interrupted', 'timeout')),
    multitask_strategy text NOT NULL DEFAULT 'reject',
    metadata jsonb NOT NULL DEFAULT '{}',
    kwargs jsonb NOT NULL DEFAULT '{}',
    -- PP_EVENTS sequence before the run's first event: where a replay "from the start" begins.
    start_seq bigint NOT NULL DEFAULT 0,
    -- The thread's newest checkpoint when the run took the thread: `rollback` deletes what came after.
    base_checkpoint_id text,
    -- An enqueued run's chat command (JSON) until it starts; NULL once published.
    queued_command jsonb,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX lg_runs_thread ON lg_runs (thread_id, created_at);
CREATE INDEX lg_runs_queue ON lg_runs (thread_id, created_at) WHERE queued_command IS NOT NULL;

ALTER TABLE lg_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE lg_runs FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON lg_runs USING (tenant_id = pp_tenant()) WITH CHECK (tenant_id = pp_tenant());
