-- One turn at a time per thread: the gateway claims a thread for a run, the worker that
-- publishes the run's terminal event releases it. A claim older than the turn timeout is stale.
ALTER TABLE conversations ADD COLUMN current_run_id uuid;
ALTER TABLE conversations ADD COLUMN run_started_at timestamptz;
