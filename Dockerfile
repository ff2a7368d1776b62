# syntax=docker/dockerfile:1
# One image for api, worker and migrate (they differ only by command, see docker-compose.yml).

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: compile TypeScript to dist/ and prebuild the pools' workflow bundles (dist/workflow-bundle-*.js) ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- runtime: production dependencies and dist/ only, as the non-root `node` user ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# A 32 MB young generation (V8's default is 16): fewer scavenges, the pauses that set the API's p99
# (docs/performance.md "bench:api")
ENV NODE_OPTIONS=--max-semi-space-size=32
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# DATA_DIR defaults to .data (relative to /app); make it writable for the node user.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
CMD ["node", "dist/src/bin/api.js"]
