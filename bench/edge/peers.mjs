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

/**
 * nginx's configuration. `tuned`: an upstream block with a pool of 128 kept connections (nginx at
 * its best). As the peers ship it (their templates, 2026): Dokku's nginx.conf.sigil has an upstream
 * block without `keepalive`, HTTP/1.1 with `Connection: upgrade` and an access log per app;
 * CapRover's server-block-conf.ejs sets `$upstream` and proxies to it (a variable: Docker's DNS
 * through `resolver`, here the IP itself), HTTP/1.0, and its base-nginx-conf.ejs runs one worker
 * and logs every request from a non-private address (127.0.0.1 included). Neither keeps upstream
 * connections: a connect per request.
 */
export function nginxConf(port, upstreamIp, flavour = "tuned") {
  const upstream =
    flavour === "caprover" ? "" : `upstream app {\n    server ${upstreamIp}:8080;${flavour === "tuned" ? "\n    keepalive 128;" : ""}\n  }`;
  const location = {
    tuned: `proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;`,
    dokku: `proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Port $server_port;
      proxy_set_header X-Request-Start $msec;`,
    caprover: `proxy_pass $upstream;
      proxy_set_header Host $host;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;`,
  }[flavour];
  return `worker_processes ${flavour === "caprover" ? 1 : "auto"};
pid /tmp/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log ${flavour === "tuned" ? "off" : "/tmp/access.log"};
  ${upstream}
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate /bench/tls.crt;
    ssl_certificate_key /bench/tls.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ${flavour === "caprover" ? `set $upstream http://${upstreamIp}:8080;` : ""}
    location / {
      ${location}
    }
  }
}
`;
}

export async function startNginx(docker, name, dir, port, upstreamIp, created, flavour = "tuned") {
  const conf = `nginx-${flavour}.conf`;
  const files = { [conf]: nginxConf(port, upstreamIp, flavour) };
  return startInHost(docker, name, NGINX_IMAGE, dir, files, ["nginx", "-c", `/bench/${conf}`, "-g", "daemon off;"], [], created);
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
