# syntax=docker/dockerfile:1

# The Node line of .nvmrc. Pin a digest (node:20.20-bookworm-slim@sha256:...) for builds that must
# be reproducible: a tag moves with every Debian and Node patch release.
ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS base
# The npm of package.json's packageManager, which wrote the lockfile: the npm 10 bundled with Node 20
# resolves and runs install scripts differently, and the install would no longer be the one tested.
RUN npm install --global npm@11.19.1 && npm cache clean --force
WORKDIR /app

FROM base AS build
ENV TURBO_TELEMETRY_DISABLED=1
# Manifests and patches before the sources, so that a change to the code reuses the installed layer.
COPY package.json package-lock.json ./
COPY patches ./patches
COPY contract/package.json ./contract/
COPY server/package.json ./server/
COPY client/package.json ./client/
RUN npm ci
COPY . .
# --only: the server's devDependency on the SDK would otherwise build the client, which the image
# does not ship; the contract is still built first, as the server's dependency.
RUN npx turbo run build --filter=@tms/contract --filter=@tms/server --only

FROM base AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
# What the server reads at run time: its compiled code, its package.json (the version it reports),
# the SQL migrations it applies at start, and the contract it is built on. The lockfile and the
# patches make the install below the reviewed one: postinstall applies patches/ to postgres.js.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/patches ./patches
COPY --from=build /app/contract/package.json ./contract/
COPY --from=build /app/contract/dist ./contract/dist
COPY --from=build /app/server/package.json ./server/
COPY --from=build /app/server/dist ./server/dist
COPY --from=build /app/server/drizzle ./server/drizzle
# Only the server workspace (and the contract it links) plus the root, whose postinstall patches the
# database driver: no SDK, no build or test tools. server/test/tools/image-steps.test.ts runs this
# same line outside Docker.
RUN npm ci --omit=dev --workspace=@tms/server --include-workspace-root && npm cache clean --force
# The code stays root-owned, read-only to the service. Without DATABASE_URL the embedded database
# lives in /app/.data (one process only; mount a volume there to keep it).
RUN mkdir .data && chown node:node .data
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
# Readiness, not liveness: compose waits on it (up --wait, service_healthy) and Swarm routes on it.
# Plain Docker never restarts an unhealthy container, so a database outage only marks the replicas
# unhealthy until it ends. The image has no curl: Node's fetch makes the call.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready', { signal: AbortSignal.timeout(2500) }).then((res) => process.exit(res.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, and the node image's docker-entrypoint.sh cleared: node is PID 1 and gets SIGTERM
# itself (no shell or npm in between), and its handler drains the requests in flight. Node reaps
# the only children it has, cluster workers.
ENTRYPOINT []
CMD ["node", "server/dist/main.js"]
