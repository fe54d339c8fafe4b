# syntax=docker/dockerfile:1
#
# kgmem server image: a static Go binary on debian-slim (curl for the health
# check, CA certificates for HTTPS embedding/LLM endpoints).
#
#   docker build -t kgmem .
#   export KGMEM_ADMIN_KEY="$(openssl rand -hex 32)"
#   docker run -p 8080:8080 -e KGMEM_ADMIN_KEY -v kgmem:/var/lib/kgmem kgmem
#   curl -H "Authorization: Bearer $KGMEM_ADMIN_KEY" http://127.0.0.1:8080/v1/namespaces
#
# Embedded SQLite + HNSW under /var/lib/kgmem. The container listens on
# 0.0.0.0, so the server requires API keys: it refuses to start open on a
# non-loopback address. KGMEM_ADMIN_KEY is the admin key (create narrower
# keys with `docker exec CONTAINER kgmem keys create`).

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# Dependencies first, so source edits reuse the module cache layer.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/kgmem ./cmd/server

FROM debian:bookworm-slim
# Unpinned on purpose: the image should pick up bookworm's security updates.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/kgmem --create-home kgmem
COPY --from=build /out/kgmem /usr/local/bin/kgmem
USER 10001:10001
WORKDIR /var/lib/kgmem
ENV KGMEM_ADDR=0.0.0.0:8080 \
    KGMEM_DATA_DIR=/var/lib/kgmem/data
VOLUME ["/var/lib/kgmem"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["curl", "-fsS", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/kgmem"]
CMD ["serve"]
