# One API node. Build: docker build -t express-delivery .
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --include=optional && npm cache clean --force
COPY src ./src
COPY rest ./rest
COPY schema ./schema
COPY realtime ./realtime
COPY tsconfig.json ./
ENV NODE_ENV=production PORT=3000
EXPOSE 3000
USER node
CMD ["node", "--import", "tsx", "src/main.ts"]
