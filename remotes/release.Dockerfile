# syntax=docker/dockerfile:1
# The bundled remotes' release step: builds every remote under remotes/ with its own build script, then runs
# the release CLI's publish step (tools/release-cli) for each: upload into the release store folder
# (ATRIUM_RELEASE_STORE_DIR), register with the API as atrium-deployer, activate.
# Build from the repository root: docker build -f remotes/release.Dockerfile -t atrium/remotes-release .
# A new remote adds its `--workspace remotes/<name>` to both npm commands below (checked by infra/checks).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Every workspace's package.json in its place (see services/api/Dockerfile for why).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && cp package.json package-lock.json .npmrc /manifests/ \
 && find shell remotes services tools -name package.json -not -path '*/node_modules/*' \
      -exec sh -c 'mkdir -p "/manifests/$(dirname "$1")" && cp "$1" "/manifests/$1"' _ {} \;

FROM ${NODE_IMAGE} AS build
WORKDIR /repo
COPY --from=manifests /manifests ./
RUN npm ci --workspace shell/sdk --workspace remotes/profile --workspace remotes/admin \
      --include-workspace-root=false --no-audit --no-fund
COPY tsconfig.base.json ./
# All of the sdk: the remotes bundle against src/ and their rspack.config.ts imports build/ (@atrium/sdk/build).
COPY shell/sdk shell/sdk
COPY remotes remotes
RUN npm run build --workspace remotes/profile --workspace remotes/admin \
 && mkdir /out \
 && for dir in remotes/*/; do \
      mkdir -p "/out/$dir" && cp "$dir/package.json" "/out/$dir" && cp -r "$dir/dist" "/out/$dir/dist"; \
    done

# The publish step needs only Node, the release CLI and the sdk's files it runs (@atrium/sdk/transport,
# /problem-sentences, /remote-rules, /release-types: Node's standard library only), linked as npm links
# workspaces, the built remotes, and for comparing a release's types with the active one's TypeScript and
# React's types (from the build stage, where the remotes' builds used them).
FROM ${NODE_IMAGE}
ENV ATRIUM_RELEASE_STORE_DIR=/releases
WORKDIR /repo
COPY package.json ./
COPY shell/sdk/package.json shell/sdk/
COPY shell/sdk/src shell/sdk/src
COPY tools/release-cli tools/release-cli
RUN mkdir -p node_modules/@atrium \
 && ln -s ../../shell/sdk node_modules/@atrium/sdk \
 && ln -s ../../tools/release-cli node_modules/@atrium/release-cli
COPY --from=build /repo/node_modules/typescript node_modules/typescript
COPY --from=build /repo/node_modules/@types/react node_modules/@types/react
COPY --from=build /repo/node_modules/csstype node_modules/csstype
COPY infra/release-store/publish-bundled.ts infra/release-store/
COPY --from=build /out/remotes remotes
# A fresh named volume mounted here takes this folder's owner, so the unprivileged user can write releases.
RUN mkdir -p /releases && chown node:node /releases
USER node
CMD ["node", "infra/release-store/publish-bundled.ts"]
