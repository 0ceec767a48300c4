# The Python 3.11 base for deploy/Dockerfile when no registry is reachable: Debian 12's own
# python3 (3.11) on the debootstrapped base that deploy/images.sh imports. With a registry,
# deploy/Dockerfile uses python:3.11-slim instead (its PYTHON_IMAGE default) and this is unused.
# ca/ holds the build machine's own CA certificates (/usr/local/share/ca-certificates, e.g. a
# TLS-inspecting egress proxy), so pip inside builds trusts what the host trusts.
ARG BASE_IMAGE=local/debian:bookworm
FROM ${BASE_IMAGE}
COPY ca/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s /usr/bin/python3 /usr/local/bin/python
# Debian 12's venv pip (23.0) trusts its own certifi bundle unless told otherwise.
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
