# groundfix GitHub App: build the TypeScript, then run the compiled app with production dependencies only.
# Configure with environment variables (see .env.example), e.g.:
#   docker build -t groundfix . && docker run --env-file .env -p 3000:3000 groundfix

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY app.yml ./
# The image's unprivileged `node` user (uid 1000) runs the app; nothing under /app is writable by it.
USER node
EXPOSE 3000
CMD ["node", "dist/cli/main.js", "serve"]
