import { ExitCode, VisibleError } from "../errors.js";
import { mintToken, runningStudio, signInUrl, startStudio, stopStudio } from "../studio/launcher.js";
import { checkHttpsPort } from "./flags.js";
import { printJson } from "./render.js";

export interface StudioOptions {
  port?: string;
  stop?: boolean;
  status?: boolean;
  serve?: boolean;
  json?: boolean;
}

const checkPort = (p: string | undefined) => (p === undefined ? undefined : checkHttpsPort(p, "--port"));

/** The page of one environment in the running Studio, or undefined when Studio is not running. */
export async function studioLink(project: string, env: string): Promise<string | undefined> {
  const s = await runningStudio().catch(() => undefined);
  return s ? `${s.url}/projects/${encodeURIComponent(project)}/${encodeURIComponent(env)}` : undefined;
}

export async function runStudioCommand(o: StudioOptions): Promise<void> {
  const port = checkPort(o.port);
  if (o.serve) {
    // The server (hono, the telemetry store, the Docker client) loads only in the process that serves.
    const { runStudio } = await import("../studio/serve.js");
    await runStudio(port);
  }
  if (o.stop) {
    const stopped = await stopStudio();
    if (o.json) printJson({ stopped });
    else process.stdout.write(stopped ? "Studio stopped\n" : "Studio was not running\n");
    return;
  }
  if (o.status) {
    const s = await runningStudio();
    if (o.json) printJson(s ? { running: true, url: s.url, pid: s.pid, startedAt: s.startedAt } : { running: false });
    else
      process.stdout.write(
        s ? `Studio runs at ${s.url} (pid ${s.pid}, since ${s.startedAt})\n` : "Studio is not running: platform studio starts it\n",
      );
    if (!s) process.exitCode = 1;
    return;
  }
  let s = await runningStudio();
  const reused = s !== undefined;
  if (s && port && s.port !== port)
    throw new VisibleError(`Studio already runs on port ${s.port}: platform studio --stop first to move it to ${port}`, {
      exitCode: ExitCode.usage,
    });
  if (!s)
    s = await startStudio(port).catch((e: Error) => {
      throw new VisibleError(e.message, { exitCode: ExitCode.failed });
    });
  const url = signInUrl(s, await mintToken(s));
  if (o.json) {
    printJson({ url, studio: s.url, pid: s.pid, reused });
    return;
  }
  process.stdout.write(`Studio ${reused ? "runs" : "started"} at ${s.url} (pid ${s.pid}; platform studio --stop stops it)\n`);
  process.stdout.write(`Open (one-time sign-in link): ${url}\n`);
}
