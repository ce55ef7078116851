# One API node. Build: docker build -t express-delivery .
# Stage 1 installs every dependency and compiles the TypeScript (npm run build -> dist/); stage 2
# holds only the production dependencies and dist/, and runs compiled JavaScript (no tsx) as `node`.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --include=optional
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY rest ./rest
COPY schema ./schema
COPY realtime ./realtime
COPY web ./web
RUN npm run build && npm prune --omit=dev && npm cache clean --force

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Embedded mode writes its SQLite file and master key under DATA_DIR (./data): owned by the runtime user,
# so `docker run -p 3000:3000 -v exd-data:/app/data express-delivery` works as is (a new named volume
# takes this owner).
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
EXPOSE 3000
USER node
# Admin CLI in the container: node dist/src/admin-cli.js <command> --json
CMD ["node", "dist/src/main.js"]
