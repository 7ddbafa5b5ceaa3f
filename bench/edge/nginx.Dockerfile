# nginx from Debian, as CapRover and Dokku ship it: the edge benchmark's peer (bench/edge/peers.mjs).
FROM platform-local/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends nginx && rm -rf /var/lib/apt/lists/*
