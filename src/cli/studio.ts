import { type Command, Option } from "commander";
import { ExitCode, VisibleError } from "../errors.js";
import { checkHttpsPort } from "./flags.js";
import { printJson } from "./render.js";

interface StudioOptions { port?: string; stop?: boolean; status?: boolean; serve?: boolean; json?: boolean }

const checkPort = (p: string | undefined) => (p === undefined ? undefined : checkHttpsPort(p, "--port"));

/** The page of one environment in the running Studio, or undefined when Studio is not running. */
export async function studioLink(project: string, env: string): Promise<string | undefined> {
  const { runningStudio } = await import("../studio/launcher.js");
  const s = await runningStudio().catch(() => undefined);
  return s ? `${s.url}/projects/${encodeURIComponent(project)}/${encodeURIComponent(env)}` : undefined;
}

async function runStudioCommand(o: StudioOptions): Promise<void> {
  const port = checkPort(o.port);
  if (o.serve) {
    const { runStudio } = await import("../studio/serve.js");
    await runStudio(port);
  }
  const l = await import("../studio/launcher.js");
  if (o.stop) {
    const stopped = await l.stopStudio();
    if (o.json) printJson({ stopped });
    else process.stdout.write(stopped ? "Studio stopped\n" : "Studio was not running\n");
    return;
  }
  if (o.status) {
    const s = await l.runningStudio();
    if (o.json) printJson(s ? { running: true, url: s.url, pid: s.pid, startedAt: s.startedAt } : { running: false });
    else process.stdout.write(s ? `Studio runs at ${s.url} (pid ${s.pid}, since ${s.startedAt})\n` : "Studio is not running: platform studio starts it\n");
    if (!s) process.exitCode = 1;
    return;
  }
  let s = await l.runningStudio();
  const reused = s !== undefined;
  if (s && port && s.port !== port) throw new VisibleError(`Studio already runs on port ${s.port}: platform studio --stop first to move it to ${port}`, { exitCode: ExitCode.usage });
  if (!s) s = await l.startStudio(port).catch((e: Error) => { throw new VisibleError(e.message, { exitCode: ExitCode.failed }); });
  const url = l.signInUrl(s, await l.mintToken(s));
  if (o.json) { printJson({ url, studio: s.url, pid: s.pid, reused }); return; }
  process.stdout.write(`Studio ${reused ? "runs" : "started"} at ${s.url} (pid ${s.pid}; platform studio --stop stops it)\n`);
  process.stdout.write(`Open (one-time sign-in link): ${url}\n`);
}

export function registerStudio(program: Command): void {
  program.command("studio")
    .description("start Studio, the web console, on 127.0.0.1 and print a one-time sign-in link (it keeps running in the background)")
    .option("--port <port>", "port on 127.0.0.1 (default 4680, else a free one)")
    .option("--stop", "stop the running Studio")
    .option("--status", "say whether Studio runs, and where (exit 1 when not)")
    .option("--json", "machine-readable output")
    .addOption(new Option("--serve", "run the server in this process (what the background process runs)").hideHelp())
    .action(runStudioCommand);
}
