-- Sets are a user's own grouping: another user of the tenant must not see (or probe) them.
DROP POLICY tenant_isolation ON sets;
CREATE POLICY owner_only ON sets
    USING (tenant_id = pp_tenant() AND user_id = pp_user())
    WITH CHECK (tenant_id = pp_tenant() AND user_id = pp_user());
