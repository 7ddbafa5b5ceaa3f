import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { PLATFORM_VERSION } from "../version.js";
import type { StackConfigValue } from "./stack-settings.js";
import { PLATFORM_ROOT, workspaceProgram } from "./workspace.js";

/** The SDK's own pieces a mock run needs beyond its public API (runtime/state.js, runtime/settings.js). */
interface SdkRuntime {
  withLocalStorage<T>(run: () => Promise<T>): Promise<T>;
  getMonitor(): Record<string, (req: { toObject(): unknown }, cb: unknown) => unknown>;
  waitForRPCs(): Promise<void>;
}

/** What the engine would be told, by monitor call: every resource, its outputs, every invoke. */
const TAPPED = ["registerResource", "registerResourceOutputs", "readResource", "invoke", "call"];

/** Where in the code a request came from: it differs with how stack traces are mapped, and the code stamp covers the code. */
const PLACES = new Set(["stacktrace", "sourceposition", "parentstacktracehandle"]);
const withoutPlaces = (key: string, value: unknown) => (PLACES.has(key) ? undefined : value);

/**
 * The platform's code as it is installed: the version and every compiled file's size and time.
 * A deploy after an upgrade runs the engine once, whatever its inputs.
 */
function codeStamp(): string {
  const dist = join(PLATFORM_ROOT, "dist");
  const h = createHash("sha256").update(PLATFORM_VERSION);
  for (const f of (readdirSync(dist, { recursive: true }) as string[]).filter((n) => n.endsWith(".js")).sort()) {
    const st = statSync(join(dist, f));
    h.update(`\n${f}:${st.size}:${st.mtimeMs}`);
  }
  return h.digest("hex");
}

/**
 * The fingerprint of what the stack's program asks of the engine, for these settings: the
 * program is run in this process against the SDK's mock monitor (no engine, no provider,
 * nothing created), and every request it makes (each resource's type, name, inputs, options,
 * parent and dependencies, the stack's outputs) is hashed with the platform's code stamp.
 * Secrets stay their ciphertext. Resource outputs the program reads back are mocked as the
 * resource's own inputs: a dependent's request then carries its dependency's inputs, which are
 * in the fingerprint anyway. Same fingerprint, same requests: nothing for the engine to do
 * that the state does not already hold (no-op.ts). Undefined when the program fails (the
 * engine then runs and reports it).
 */
export async function programFingerprint(
  project: string,
  env: string,
  config: Readonly<Record<string, StackConfigValue>>,
): Promise<string | undefined> {
  const pulumi = await import("@pulumi/pulumi");
  const runtime = {
    ...((await import("@pulumi/pulumi/runtime/state.js")) as unknown as Pick<SdkRuntime, "withLocalStorage">),
    ...((await import("@pulumi/pulumi/runtime/settings.js")) as unknown as Omit<SdkRuntime, "withLocalStorage">),
  };
  const program = await workspaceProgram(project);
  const requests: string[] = [];
  let failed = false;
  const onFailure = () => {
    failed = true;
  };
  process.on("unhandledRejection", onFailure);
  // The SDK takes a stack trace for every resource and output (their source positions), which
  // the fingerprint leaves out: a third of the run's time at 40 services.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    await runtime.withLocalStorage(async () => {
      await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, project, env, false);
      const monitor = runtime.getMonitor();
      for (const name of TAPPED) {
        const original = monitor[name]?.bind(monitor);
        if (!original) continue;
        monitor[name] = (req, cb) => {
          requests.push(`${name} ${JSON.stringify(req.toObject(), withoutPlaces)}`);
          return original(req, cb);
        };
      }
      pulumi.runtime.setAllConfig(
        Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.value])),
        Object.entries(config)
          .filter(([, v]) => v.secret)
          .map(([k]) => k),
      );
      // The program's own error is caught here: thrown through the stack resource, the SDK
      // would also reject promises that no one awaits.
      const guarded = async () => {
        try {
          return await program();
        } catch {
          onFailure();
          return {};
        }
      };
      await pulumi.runtime.runInPulumiStack(guarded);
      await runtime.waitForRPCs();
    });
  } catch {
    return undefined;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    // Rejections of this run are reported after its last microtask.
    await new Promise((resolve) => setImmediate(resolve));
    process.off("unhandledRejection", onFailure);
  }
  if (failed) return undefined;
  // Registrations that do not wait on each other may arrive in either order.
  return createHash("sha256").update(codeStamp()).update(requests.sort().join("\n")).digest("hex");
}
