-- Accounts (docs/architecture.md §3): password or SSO sign-in, rotating refresh tokens, invites, onboarding.
-- Only hashes of secrets are stored. Everything is tenant-scoped under FORCE RLS except
-- login_directory, the one table read before the tenant is known: it maps an address to its
-- tenant and holds no secret.
ALTER TABLE users ADD COLUMN description text;

CREATE TABLE login_directory (
    email text PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL
);

CREATE TABLE accounts (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    email text NOT NULL,
    password_hash text,
    role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'agent', 'admin')),
    disabled boolean NOT NULL DEFAULT false,
    onboarded_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id),
    UNIQUE (tenant_id, email),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);

-- A refresh token belongs to a family (one sign-in); using a token rotates it. Presenting a
-- token that was already rotated means it leaked: the whole family is revoked.
CREATE TABLE refresh_tokens (
    token_hash text PRIMARY KEY,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    family_id uuid NOT NULL,
    expires_at timestamptz NOT NULL,
    rotated_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, user_id) REFERENCES accounts (tenant_id, user_id) ON DELETE CASCADE
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (tenant_id, family_id);

CREATE TABLE invites (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    email text NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'agent', 'admin')),
    token_hash text NOT NULL UNIQUE,
    created_by text NOT NULL,
    expires_at timestamptz NOT NULL,
    accepted_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- An identity-provider subject signs in as one user of the tenant whose provider it came from.
CREATE TABLE sso_identities (
    tenant_id uuid NOT NULL,
    issuer text NOT NULL,
    subject text NOT NULL,
    user_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, issuer, subject),
    FOREIGN KEY (tenant_id, user_id) REFERENCES accounts (tenant_id, user_id) ON DELETE CASCADE
);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['accounts', 'refresh_tokens', 'invites', 'sso_identities'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON %I USING (tenant_id = pp_tenant()) '
            'WITH CHECK (tenant_id = pp_tenant())', t);
    END LOOP;
END $$;
