# Fleet Worker image: one headless Claude Code worker per container, or the whole action as a
# job `container:`. See docs/container.md for both uses and what each isolates.
#
# The base is node:24-bookworm-slim pinned by the digest of its multi-arch index: Node 24.18.0 on
# Debian 12, built 2026-07-14 (digest as recorded in docker-library's repo-info). A digest never
# moves, so rebuilding a release tag gives the same base. Replace it for a mirror or a newer Node
# with `podman build --from IMAGE` / `docker buildx build
# --build-context node:24.18.0-bookworm-slim=docker-image://IMAGE` (scripts/podman-check.sh does).
FROM node:24.18.0-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# Must equal package.json's dependency on @anthropic-ai/claude-code (a unit test holds them together).
ARG CLAUDE_CODE_VERSION=2.1.332
ARG FLEET_VERSION=0.1.0
# The publish workflow sets this to the repository URL, which is what links the GHCR package to it.
ARG IMAGE_SOURCE=""

LABEL org.opencontainers.image.title="fleet-worker" \
      org.opencontainers.image.description="Headless Claude Code worker for Fleet Worker: git, the pinned claude CLI, a few build tools, tini, non-root user fleet (uid 1001)." \
      org.opencontainers.image.source="${IMAGE_SOURCE}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${FLEET_VERSION}"

# The tool set a worker can count on, kept small on purpose:
#   ca-certificates  TLS to the model endpoint      git       the worker reads and commits history
#   make, python3    the most common build/test entry points
#   ripgrep          claude's Grep tool is much faster with rg   jq  JSON in shell steps
#   tini             PID 1: reaps the children claude's Bash tool leaves, forwards SIGTERM
#   procps           ps/kill for claude's background shells
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates git make python3 ripgrep jq tini procps \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

# The postinstall (install.cjs) links the native binary from the platform package over the
# bin/claude.exe stub. npm versions that skip install scripts would leave the stub, so run it
# again explicitly (it is idempotent) and prove the binary works before the layer is kept.
RUN npm install -g --no-fund --no-audit "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" \
 && node "$(npm root -g)/@anthropic-ai/claude-code/install.cjs" \
 && claude --version | grep -F "${CLAUDE_CODE_VERSION}" \
 && npm cache clean --force

# uid 1001 is the runner user on GitHub-hosted Linux runners, so files a worker writes into a
# bind-mounted worktree stay owned by the runner. Non-root also lets bypassPermissions run
# without IS_SANDBOX.
RUN groupadd --gid 1001 fleet \
 && useradd --uid 1001 --gid 1001 --create-home --shell /bin/bash fleet \
 && mkdir -p /workspace /home/fleet/.claude-config \
 && chown fleet:fleet /workspace /home/fleet/.claude-config

ENV HOME=/home/fleet \
    CLAUDE_CONFIG_DIR=/home/fleet/.claude-config \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    DISABLE_AUTOUPDATER=1

USER fleet
WORKDIR /workspace

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["claude", "--version"]
