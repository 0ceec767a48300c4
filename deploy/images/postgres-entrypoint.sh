#!/bin/bash
# First start: initdb with the superuser POSTGRES_USER (password POSTGRES_PASSWORD, required),
# create POSTGRES_DB, accept password (SCRAM) logins from the network. Later starts: the data
# directory is kept as it is. Then the server replaces this shell (it gets the signals).
set -euo pipefail
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [[ -z "${POSTGRES_PASSWORD:-}" ]]; then
    echo "postgres-entrypoint: POSTGRES_PASSWORD is required" >&2
    exit 1
fi
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
    mkdir -p "$PGDATA"
    chmod 700 "$PGDATA"
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" > /dev/null
    rm -f "$pwfile"
    printf 'host all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
    printf "listen_addresses = '*'\nunix_socket_directories = '/var/run/postgresql'\n" >> "$PGDATA/postgresql.conf"
    if [[ "$POSTGRES_DB" != "postgres" ]]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" postgres > /dev/null
    fi
fi
exec "$@"
