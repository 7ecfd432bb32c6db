# syntax=docker/dockerfile:1
# Build stage: the full install (TypeScript, esbuild) compiles src/ to dist/, bundles dist/main.js
# and prepares dist/pglite-image (the migrated database folder a first start copies: drizzle/).
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY drizzle ./drizzle
COPY src ./src
COPY web ./web
RUN npm run build

# Runtime dependencies only.
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY drizzle ./drizzle
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Plain node (no tsx, no npm in between) is PID 1: `docker stop`'s SIGTERM reaches the service's own
# handler, which drains within 10 s, docker's default grace before SIGKILL.
# The same node options as `npm start` (package.json; test/process/start-command.test.ts keeps them
# equal): see docs/PERFORMANCE.md, Memory.
CMD ["node", "--v8-pool-size=1", "--max-semi-space-size=4", "dist/main.js"]
