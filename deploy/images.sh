#!/usr/bin/env bash
# Build every image docker-compose.yml runs, from what this machine can reach (Debian's archive
# and PyPI; no container registry):
#   local/debian:bookworm        debootstrap --variant=minbase, imported once per recipe (cached)
#   local/python:3.11-bookworm   Debian's python3 on it      (deploy/images/python.Dockerfile)
#   policypal:TAG                the app image               (deploy/Dockerfile, target app)
#   policypal-embedder:TAG       the embedding service image (deploy/Dockerfile, target embedder)
#   policypal-nats:TAG           nats-server from its wheel  (deploy/images/nats.Dockerfile)
#   policypal-postgres:TAG       Postgres 18 + pgvector      (deploy/images/postgres.Dockerfile)
# TAG is POLICYPAL_IMAGE_TAG (default "local"), as in docker-compose.yml; deploy/images.env
# points compose at the last two. Docker's layer cache keeps the dependency layers, so a second
# run only rebuilds what changed. Usage: deploy/images.sh [--print-times]   (docs/deploy.md)
set -euo pipefail
cd "$(dirname "$0")/.."

TAG="${POLICYPAL_IMAGE_TAG:-local}"
SUITE=bookworm
MIRROR="${PP_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${PP_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
BASE="local/debian:$SUITE"
PYTHON="local/python:3.11-$SUITE"
TORCH_VERSION=2.13.0

# BuildKit (it reads deploy/Dockerfile.dockerignore): through buildx where the client has it, else
# a Docker client older than 23 that still has BuildKit built in (Debian 12's docker.io, which
# a newer client without buildx may shadow on PATH). Build steps reach PyPI and Debian through
# the host's network.
builder() {
    local client
    if docker buildx version > /dev/null 2>&1; then
        echo docker buildx build --load --network host
        return
    fi
    for client in docker /usr/bin/docker; do
        if [[ -x "$(command -v "$client")" ]] \
            && (( $("$client" version -f '{{.Client.Version}}' 2>/dev/null | cut -d. -f1) < 23 )); then
            echo env DOCKER_BUILDKIT=1 "$client" build --network host
            return
        fi
    done
    echo "images: BuildKit is needed: the docker buildx plugin, or Debian 12's docker.io client" >&2
    exit 1
}
build_cmd="$(builder)"
read -r -a BUILD <<< "$build_cmd"

timed() {  # timed TAG COMMAND...: build TAG, report the wall time, drop the image it replaced
    local name="$1" start=$SECONDS old new
    old="$(docker image inspect -f '{{.Id}}' "$name" 2>/dev/null || true)"
    shift
    "$@" > /dev/null
    new="$(docker image inspect -f '{{.Id}}' "$name")"
    if [[ -n "$old" && "$old" != "$new" ]]; then
        docker image rm "$old" > /dev/null 2>&1 || true  # still used by a container: kept
    fi
    echo "images: $name built in $((SECONDS - start)) s"
}

# The sources and trimming below are the recipe: its hash is the cache key, kept as a label.
base_recipe() {
    cat <<RECIPE
debootstrap --variant=minbase $SUITE $MIRROR
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
trim: apt caches and lists, docs, man pages, locales; dpkg excludes them from later installs
apt keeps no package caches (docker-clean, as Debian's official images)
RECIPE
}

build_base() {
    local key have root
    key="$(base_recipe | sha256sum | cut -c1-16)"
    have="$(docker image inspect -f '{{ index .Config.Labels "com.policypal.base-key" }}' "$BASE" 2>/dev/null || true)"
    if [[ "$have" == "$key" ]]; then
        echo "images: $BASE is cached (recipe $key)"
        return
    fi
    command -v debootstrap > /dev/null || { echo "images: debootstrap is needed (apt-get install debootstrap)" >&2; exit 1; }
    root="$(mktemp -d)"
    trap 'rm -rf "$root"' RETURN
    debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" > "$root.log" 2>&1 \
        || { cat "$root.log" >&2; exit 1; }
    rm -f "$root.log"
    printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
        "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$SECURITY_MIRROR" "$SUITE" > "$root/etc/apt/sources.list"
    printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\npath-exclude /usr/share/info/*\n' \
        > "$root/etc/dpkg/dpkg.cfg.d/excludes"
    # apt-get update would otherwise leave ~80 MB of binary caches in every layer that installs.
    printf 'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\nDPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb || true"; };\n' \
        > "$root/etc/apt/apt.conf.d/docker-clean"
    rm -rf "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
        "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/usr/share/info/*
    tar -C "$root" -c . | docker import \
        --change "LABEL com.policypal.base-key=$key" \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' - "$BASE" > /dev/null
}

# deploy/Dockerfile installs CPU-only torch from PyTorch's CPU index. Where pip is configured
# with a local wheel store holding the CPU wheel (this machine: PIP_FIND_LINKS), use that wheel
# and PyPI instead: the build gets it through the build context (deploy/wheels/).
torch_args() {
    local dir wheel
    rm -f deploy/wheels/torch-*.whl
    for dir in ${PIP_FIND_LINKS:-} $(python3 -m pip config get global.find-links 2>/dev/null || true); do
        wheel="$(ls "$dir"/torch-"$TORCH_VERSION"+cpu-cp311-*.whl 2>/dev/null | head -n1 || true)"
        if [[ -n "$wheel" ]]; then
            cp "$wheel" deploy/wheels/
            echo "--build-arg TORCH_INDEX_URL=https://pypi.org/simple"
            return
        fi
    done
}

# The host's own CA certificates, for pip inside builds (deploy/images/python.Dockerfile).
stage_ca() {
    rm -rf deploy/images/ca
    mkdir -p deploy/images/ca
    cp /usr/local/share/ca-certificates/*.crt deploy/images/ca/ 2>/dev/null || true
}

build_base
stage_ca
timed "$PYTHON" "${BUILD[@]}" -q -f deploy/images/python.Dockerfile --build-arg "BASE_IMAGE=$BASE" \
    -t "$PYTHON" deploy/images
read -r -a torch <<< "$(torch_args)"
app=(--build-arg "PYTHON_IMAGE=$PYTHON" "${torch[@]}")
timed "policypal-embedder:$TAG" "${BUILD[@]}" -q -f deploy/Dockerfile --target embedder "${app[@]}" \
    -t "policypal-embedder:$TAG" .
timed "policypal:$TAG" "${BUILD[@]}" -q -f deploy/Dockerfile --target app "${app[@]}" -t "policypal:$TAG" .
common=(--build-arg "PYTHON_IMAGE=$PYTHON" --build-arg "BASE_IMAGE=$BASE")
timed "policypal-nats:$TAG" "${BUILD[@]}" -q -f deploy/images/nats.Dockerfile "${common[@]}" \
    -t "policypal-nats:$TAG" deploy/images
timed "policypal-postgres:$TAG" "${BUILD[@]}" -q -f deploy/images/postgres.Dockerfile "${common[@]}" \
    -t "policypal-postgres:$TAG" deploy/images
rm -f deploy/wheels/torch-*.whl
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' \
    | grep -E "^(local/|policypal)" | grep -E ":($TAG|$SUITE|3.11-$SUITE)\b" | sort
