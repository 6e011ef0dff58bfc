# edge-exporter container image.
#
#   docker build -t edge-exporter:dev .
#   docker run --rm -p 9810:9810 --stop-timeout 30 edge-exporter:dev   # bundled simulator, no account needed
#
# docs/deployment.md covers running it against a real account, the compose
# demo (deploy/compose/) and Kubernetes (deploy/kubernetes/).
#
# Base image: Node.js 26 has been the Active LTS line since 2026-10-28 (24 went
# to Maintenance LTS on 2026-10-20), so new images start on 26 and get its
# fixes for longest. Its official images are built on Debian 13 (trixie);
# "slim" leaves out compilers and curl, which nothing here needs at run time.
# package.json still allows Node >= 20.18.1: build with
# --build-arg NODE_IMAGE=node:24-trixie-slim to stay on 24, and pin a digest
# (node:26-trixie-slim@sha256:...) for reproducible builds.
ARG NODE_IMAGE=node:26-trixie-slim

# --- build: every dependency, the TypeScript compiler, dist/ ---------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The lock file alone decides the dependency layer, so a source change
# reuses it.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies, dist/, configs; no compiler, no tests --
FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="edge-exporter" \
      org.opencontainers.image.description="Prometheus and OpenTelemetry exporter for an edge CDN / WAF platform's management API" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
ENV NODE_ENV=production \
    HEALTHCHECK_URL=http://127.0.0.1:9810/healthz

# A numeric, dedicated user: Kubernetes can only enforce runAsNonRoot against a
# numeric USER, and 10001 matches no account on a typical host (the image's
# own "node" user is 1000, often a real person on the host). The state
# directory is created owned by it, so a fresh named volume inherits that.
RUN groupadd --system --gid 10001 edge-exporter \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin edge-exporter \
 && install -d -o 10001 -g 10001 -m 0700 /var/lib/edge-exporter \
 && install -d -m 0755 /etc/edge-exporter

WORKDIR /app
# Production dependencies only, from the same lock file; no dependency needs an
# install script, so none is run.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force
COPY --from=build /src/dist ./dist
# The OTLP schema the log exporter encodes with (src/exporters/otel-logs/otlp-serializer.ts), beside dist/ as in the repository.
COPY proto ./proto
COPY config.example.yaml ./
COPY deploy/container/config.yaml /etc/edge-exporter/config.yaml

USER 10001:10001
# Config (read-only to the process) and state (counters, watermarks, the WAF
# event checkpoint: keep it across restarts and upgrades).
VOLUME ["/etc/edge-exporter", "/var/lib/edge-exporter"]
EXPOSE 9810

# main.js turns SIGTERM into an orderly stop: schedules stopped, state saved,
# WAF events flushed to OTLP. That can take up to ~25 s with a slow receiver,
# so give the container time: docker run/stop --stop-timeout 30, compose
# stop_grace_period: 30s, Kubernetes terminationGracePeriodSeconds.
STOPSIGNAL SIGTERM

# Slim images have no curl, so node itself asks /healthz (200 while the
# process serves). Set HEALTHCHECK_URL when server.listen moves the port;
# under server.tls use --no-healthcheck or a health-cmd of your own.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# The node flags are src/cli/node-flags.ts's (why each, and its measured
# price); npm start passes the same, and test/cli/node-flags.test.ts keeps
# the three alike.
ENTRYPOINT ["node", "--heap-growing-percent=20", "--max-semi-space-size=4", "dist/cli/main.js"]
CMD ["run", "--config", "/etc/edge-exporter/config.yaml"]
