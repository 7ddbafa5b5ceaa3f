import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildFastapiRecipe, buildNextjsRecipe } from "../../../../src/plan/recipes/index.js";
import {
  OTEL_NODE_PACKAGES,
  OTEL_PYTHON_CONTRIB_VERSION,
  OTEL_PYTHON_PACKAGES,
  OTEL_PYTHON_SDK_VERSION,
  otelLayersFor,
} from "../../../../src/plan/recipes/opentelemetry.js";
import { LOCAL, snapshot } from "./snapshot.js";

const DISTRO = fileURLToPath(new URL("../../../../images/otel-python/", import.meta.url));
const dir = join(mkdtempSync(join(tmpdir(), "platform-otel-distro-")), "otel");
afterAll(() => rmSync(dirname(dir), { recursive: true, force: true }));
const MAIN = "from fastapi import FastAPI\n\napp = FastAPI()\n";
const REQS = "fastapi==0.165.0\nuvicorn[standard]==0.54.0\n";
const UV_PYPROJECT =
  '[project]\nname = "svc"\nversion = "1.0.0"\nrequires-python = ">=3.11"\ndependencies = ["fastapi==0.165.0", "uvicorn[standard]==0.54.0"]\n';
const NEXT_PKG = JSON.stringify({
  name: "web",
  scripts: { build: "next build" },
  dependencies: { next: "15.5.29", react: "19.3.1", "react-dom": "19.3.1" },
});

/** Stages of a generated Dockerfile by name (the final one has none: "final"). */
function stages(dockerfile: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const block of dockerfile.split(/^(?=FROM )/m).slice(1)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    out[/ AS (\S+)$/.exec(lines[0]!)?.[1] ?? "final"] = lines;
  }
  return out;
}

describe("zero-code OpenTelemetry in the fastapi recipe", () => {
  it("installs pinned packages in a stage of their own, starts with the platform's start-up on PYTHONPATH", () => {
    const r = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL, { instrument: true });
    const s = stages(r.dockerfile);
    expect(Object.keys(s)).toEqual(["build", "opentelemetry", "final"]);
    // Only the base image feeds it: no manifest or code, so no app change reinstalls it.
    expect(s.opentelemetry!.join("\n")).not.toMatch(/COPY/);
    expect(s.opentelemetry!.join("\n")).toContain(`--target /opt/otel ${OTEL_PYTHON_PACKAGES.join(" ")}`);
    expect(s.build!.join("\n")).not.toContain("opentelemetry");
    const final = s.final!;
    // The SDK comes after the venv and before the code: a code change reuses its layers.
    const at = (needle: string) => final.findIndex((l) => l.includes(needle));
    expect(at("COPY --from=build /opt/venv")).toBeLessThan(at("COPY --from=opentelemetry /opt/otel /opt/otel"));
    expect(at("COPY --from=opentelemetry /opt/otel-site/ /opt/venv/")).toBeLessThan(at("COPY --chown=app:app . ."));
    expect(r.start).toEqual([
      "/bin/sh",
      "-c",
      'exec env PYTHONPATH="/opt/otel/platform-start:$PWD${PYTHONPATH:+:$PYTHONPATH}" uvicorn main:app --host 0.0.0.0 --port "$PORT"',
    ]);
  });

  it("gives the app the PYTHONPATH opentelemetry-instrument gave it: the start-up, the working directory, the service's own", () => {
    const r = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL, { instrument: true });
    const line = r.start[2]!.replace(/uvicorn .*/, "printenv PYTHONPATH");
    const cwd = realpathSync(tmpdir());
    const run = (env: Record<string, string>) =>
      execFileSync("sh", ["-c", line], { cwd, env: { PATH: process.env.PATH ?? "", ...env } })
        .toString()
        .trim();
    expect(run({})).toBe(`/opt/otel/platform-start:${cwd}`);
    expect(run({ PYTHONPATH: "/srv/lib" })).toBe(`/opt/otel/platform-start:${cwd}:/srv/lib`);
  });

  it("puts /opt/otel after the venv's own packages (a .pth file), so the app's versions win", () => {
    const r = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL, { instrument: true });
    expect(r.dockerfile).toMatch(/\/site-packages && mkdir -p "\$d" && echo \/opt\/otel > "\$d\/zz-platform-opentelemetry\.pth"/);
  });

  it("selects the platform's distro, which brings its own FastAPI instrumentation (images/otel-python)", () => {
    const r = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL, { instrument: true });
    const stage = stages(r.dockerfile).opentelemetry!.join("\n");
    expect(stage).toContain("'[opentelemetry_distro]' 'platform = platform_opentelemetry_distro:PlatformDistro'");
    expect(stage).toContain("'[opentelemetry_instrumentor]' 'fastapi = platform_opentelemetry_distro.fastapi:FastAPIInstrumentor'");
    for (const f of ["__init__.py", "asgi.py", "fastapi.py", "otlp.py", "start.py", "transport.py"])
      expect(stage).toContain(`> /opt/otel/platform_opentelemetry_distro/${f}`);
    expect(stage).toContain("> /opt/otel/platform-start/sitecustomize.py");
    // Compiled at build: the app's user cannot write /opt/otel, so a start would compile them again.
    expect(stage).toContain("python3 -m compileall -q /opt/otel/platform-start /opt/otel/platform_opentelemetry_distro");
    expect(stages(r.dockerfile).final!.join("\n")).toContain("OTEL_PYTHON_DISTRO=platform");
  });

  it("writes each Python file exactly, single quotes included", () => {
    const r = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL, { instrument: true });
    const step = stages(r.dockerfile).opentelemetry!.find((l) => l.includes("platform_opentelemetry_distro/asgi.py"))!;
    const cmd = step.replace(/^RUN /, "").replaceAll("/opt/otel/", `${dir}/`);
    execFileSync("sh", ["-c", `mkdir -p ${dir} && cd ${dir} && ${cmd}`]);
    for (const f of [
      "platform_opentelemetry_distro/asgi.py",
      "platform_opentelemetry_distro/fastapi.py",
      "platform_opentelemetry_distro-1.0.dist-info/entry_points.txt",
    ]) {
      expect(readFileSync(join(dir, f), "utf8")).toBe(readFileSync(join(DISTRO, f), "utf8"));
    }
  });

  it("every pin is one SDK release and its contrib release; the client and database instrumentations are there", () => {
    for (const p of OTEL_PYTHON_PACKAGES)
      expect(p).toMatch(new RegExp(`==(${OTEL_PYTHON_SDK_VERSION}|${OTEL_PYTHON_CONTRIB_VERSION.replace(".", "\\.")})$`));
    const names = OTEL_PYTHON_PACKAGES.map((p) => p.split("==")[0]);
    for (const i of ["httpx", "requests", "psycopg", "psycopg2", "asyncpg", "sqlalchemy"])
      expect(names).toContain(`opentelemetry-instrumentation-${i}`);
    // The server side is the platform's own (contrib's FastAPI/ASGI middleware is not installed).
    for (const i of ["fastapi", "asgi"]) expect(names).not.toContain(`opentelemetry-instrumentation-${i}`);
    // The start-up loads each of them when the app imports its library: one added here must be
    // added there too, if it patches only the module of its name (else it loads at start).
    const deferrable =
      /_DEFERRABLE = \{([^}]*)\}/.exec(readFileSync(join(DISTRO, "platform_opentelemetry_distro/start.py"), "utf8"))?.[1] ?? "";
    for (const n of names.filter((n) => n?.startsWith("opentelemetry-instrumentation-")))
      expect(deferrable).toContain(`"${n!.slice("opentelemetry-instrumentation-".length)}"`);
    for (const p of OTEL_NODE_PACKAGES) expect(p).toMatch(/@\d+\.\d+\.\d+$/);
  });

  it("works the same for uv projects, and a platform.yml start gets the SDK through sitecustomize", () => {
    const uv = buildFastapiRecipe(snapshot({ "pyproject.toml": UV_PYPROJECT, "uv.lock": null, "main.py": MAIN }), LOCAL, {
      instrument: true,
    });
    expect(stages(uv.dockerfile).final!.join("\n")).toContain("COPY --from=opentelemetry /opt/otel /opt/otel");
    const started = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL, {
      instrument: true,
      start: "gunicorn -k uvicorn.workers.UvicornWorker main:app",
    });
    expect(started.dockerfile).toContain("ENV PYTHONPATH=/opt/otel/platform-start");
    expect(started.start.join(" ")).not.toContain("platform-start");
  });

  it("without instrument, nothing of it", () => {
    expect(buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN }), LOCAL).dockerfile).not.toContain("opentelemetry");
  });
});

describe("zero-code OpenTelemetry in the nextjs recipe", () => {
  it("installs the Node auto-instrumentations in their own stage and loads them with NODE_OPTIONS", () => {
    const r = buildNextjsRecipe(snapshot({ "package.json": NEXT_PKG, "package-lock.json": null, "app/page.js": "" }), LOCAL, {
      instrument: true,
    });
    const s = stages(r.dockerfile);
    expect(Object.keys(s)).toEqual(["build", "opentelemetry", "final"]);
    expect(s.opentelemetry!.join("\n")).toContain(
      `npm install --no-audit --no-fund --omit=dev --save-exact ${OTEL_NODE_PACKAGES.join(" ")}`,
    );
    // The platform's drain first (node-drain.ts), then the SDK.
    expect(s.final!.join("\n")).toContain(
      'ENV NODE_OPTIONS="--require /opt/platform/platform-drain.cjs --require /opt/otel-node/platform-register.cjs"',
    );
    // The SDK's layers come before the app's: a code change does not copy them again.
    const at = (needle: string) => s.final!.findIndex((l) => l.includes(needle));
    expect(at("COPY --from=opentelemetry /opt/otel-node/node_modules")).toBeLessThan(at("COPY --from=build"));
    // The platform's register: the SDK from the variables, and Next.js's route on the HTTP server span.
    expect(s.opentelemetry!.join("\n")).toContain("getSpanProcessorsFromEnv()");
    // Its SIGTERM handler (a last flush) is the platform's: the drain still stops an app that has none.
    expect(s.opentelemetry!.join("\n")).toContain('stop[Symbol.for("platform.sigterm")] = true;');
    expect(s.opentelemetry!.join("\n")).toContain('const ROUTE_KEYS = ["next.route", "http.route"];');
    expect(buildNextjsRecipe(snapshot({ "package.json": NEXT_PKG, "package-lock.json": null }), LOCAL).dockerfile).not.toContain(
      "opentelemetry",
    );
  });
});

describe("the OpenTelemetry layers the set-up builds once per machine", () => {
  const [python, node] = otelLayersFor(LOCAL);
  it("are the recipes' stages as images, tagged by the hash of their Dockerfile", () => {
    expect(python!.tag).toMatch(/^platform-local\/otel-layer:[0-9a-f]{12}$/);
    expect(python!.dockerfile).toMatch(new RegExp(`^FROM ${LOCAL.python}\n`));
    expect(python!.dockerfile).toContain(OTEL_PYTHON_PACKAGES.join(" "));
    expect(node!.dockerfile).toContain(OTEL_NODE_PACKAGES.join(" "));
    expect(node!.tag).not.toBe(python!.tag);
    expect(otelLayersFor(LOCAL)[0]!.tag).toBe(python!.tag);
  });

  it("a recipe starts its stage from a layer that matches, and installs the SDK itself otherwise", () => {
    const files = { "requirements.txt": REQS, "main.py": MAIN };
    const withLayers = { ...LOCAL, otelLayers: [python!.tag, node!.tag] };
    expect(stages(buildFastapiRecipe(snapshot(files), withLayers, { instrument: true }).dockerfile).opentelemetry).toEqual([
      `FROM ${python!.tag} AS opentelemetry`,
    ]);
    const web = stages(
      buildNextjsRecipe(snapshot({ "package.json": NEXT_PKG, "package-lock.json": "{}" }), withLayers, { instrument: true }).dockerfile,
    );
    expect(web.opentelemetry).toEqual([`FROM ${node!.tag} AS opentelemetry`]);
    // A layer of other base images (or an older SDK pin) is never used.
    const other = { ...LOCAL, otelLayers: ["platform-local/otel-layer:000000000000"] };
    expect(stages(buildFastapiRecipe(snapshot(files), other, { instrument: true }).dockerfile).opentelemetry!.length).toBeGreaterThan(1);
  });
});
