# syntax=docker/dockerfile:1
# The app (dist/server.mjs: API + dashboard + optionally the worker) and the worker
# (dist/worker.mjs) from one image. docs/deploy.md explains the settings; compose.yaml runs
# app + worker + PostgreSQL + Redis behind nginx.

FROM node:20.19-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY lib/package.json lib/package.json
COPY prisma prisma
COPY scripts/prisma-generate.mjs scripts/prisma-generate.mjs
# postinstall generates both Prisma clients (no engine download: scripts/prisma-generate.mjs).
RUN npm ci
COPY . .
RUN npm run build \
  && npm prune --omit=dev --ignore-scripts

FROM node:20.19-bookworm-slim
ENV NODE_ENV=production \
  PORT=3000 \
  HOST=0.0.0.0 \
  DATABASE_URL=file:/app/data/reseller.db
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/next.config.mjs ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/lib ./lib
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/.next ./.next
COPY --from=build --chown=node:node /app/prisma ./prisma
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
# Liveness; orchestrators should route on /readyz (docs/deploy.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1's child via tini (compose: init: true) or PID 1: it handles SIGTERM (graceful shutdown).
CMD ["node", "dist/server.mjs"]
