// The proxies our peers put in the edge's position, started as our edge is: in the host's
// network namespace, TLS on a port of 127.0.0.1, proxying HTTP/1.1 to the upstream's port 8080
// over kept-alive connections. In the host's network Docker's aliases do not resolve, so they
// dial the upstream container's IP (our edge resolves its alias through its resolver container).
// Configured as ours is: TLS 1.2 and 1.3 (the client negotiates 1.3), HTTP/1.1 and h2, no
// access log, X-Forwarded-* headers, one worker per CPU (Go's GOMAXPROCS; nginx's "auto").
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");
export const NGINX_IMAGE = "platform-local/bench-nginx:bookworm";

/** Traefik v3's binary (scripts/setup/traefik.sh builds it from Go modules once, cached by version). */
export const traefikBinary = () =>
  execFileSync("bash", [join(ROOT, "scripts/setup/traefik.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();

/** nginx from Debian bookworm, as CapRover and Dokku ship it (cached by Docker's layer cache). */
export function buildNginxImage() {
  const args = ["build", "-q", "-t", NGINX_IMAGE, "-f", join(import.meta.dirname, "nginx.Dockerfile"), import.meta.dirname];
  execFileSync("docker", args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** A container in the host's network with `files` ({ name: text }) mounted read-only under /bench. */
async function startInHost(docker, name, image, dir, files, cmd, extraMounts, created) {
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  const c = await docker.createContainer({
    name,
    Image: image,
    Entrypoint: cmd,
    Labels: { "platform.managed": "true" },
    HostConfig: {
      NetworkMode: "host",
      Mounts: [{ Type: "bind", Source: dir, Target: "/bench", ReadOnly: true }, ...extraMounts],
    },
  });
  created.containers.push(c.id);
  await c.start();
  return c;
}

export function nginxConf(port, upstreamIp) {
  return `worker_processes auto;
pid /tmp/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  upstream app {
    server ${upstreamIp}:8080;
    keepalive 128;
  }
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate /bench/tls.crt;
    ssl_certificate_key /bench/tls.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;
    }
  }
}
`;
}

export async function startNginx(docker, name, dir, port, upstreamIp, created) {
  const files = { "nginx.conf": nginxConf(port, upstreamIp) };
  return startInHost(docker, name, NGINX_IMAGE, dir, files, ["nginx", "-c", "/bench/nginx.conf", "-g", "daemon off;"], [], created);
}

/** Traefik's static configuration (one entry point) and dynamic one (file provider: route, service, certificate). */
export function traefikConf(port, upstreamIp) {
  const staticConf = `entryPoints:
  websecure:
    address: "127.0.0.1:${port}"
    http:
      tls: {}
providers:
  file:
    filename: /bench/dynamic.yml
log:
  level: ERROR
`;
  const dynamic = `http:
  routers:
    app:
      entryPoints: [websecure]
      rule: "HostRegexp(\`^[^.]+\\\\.localhost$\`)"
      service: app
      tls: {}
  services:
    app:
      loadBalancer:
        servers:
          - url: "http://${upstreamIp}:8080"
tls:
  certificates:
    - certFile: /bench/tls.crt
      keyFile: /bench/tls.key
  stores:
    default:
      defaultCertificate:
        certFile: /bench/tls.crt
        keyFile: /bench/tls.key
  options:
    default:
      minVersion: VersionTLS12
      alpnProtocols: [h2, http/1.1]
`;
  return { "traefik.yml": staticConf, "dynamic.yml": dynamic };
}

export async function startTraefik(docker, name, dir, port, upstreamIp, binary, baseImage, created) {
  const bin = { Type: "bind", Source: binary, Target: "/usr/local/bin/traefik", ReadOnly: true };
  const cmd = ["traefik", "--configFile=/bench/traefik.yml"];
  return startInHost(docker, name, baseImage, dir, traefikConf(port, upstreamIp), cmd, [bin], created);
}
