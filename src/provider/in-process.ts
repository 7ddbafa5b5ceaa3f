import { main } from "@pulumi/pulumi/provider/index.js";
import { platformProvider } from "./provider.js";

/**
 * The provider served from the calling process (`platform deploy`'s own) rather than as the
 * plugin process bin/pulumi-resource-platform starts: the engine attaches to it
 * (PULUMI_DEBUG_PROVIDERS=platform:<port>), and a deploy runs one Node process fewer, about
 * 65 MiB of its peak (bench/README.md "Memory"). The SDK exports only `main()`: it serves once
 * per process on a port it prints to stdout, and installs process-wide handlers for uncaught
 * errors that report them to the engine. The print is taken as the port; the handlers are
 * removed by `detach` when the deploy is done, so the CLI's own errors stay its own afterwards.
 */
export interface InProcessProvider {
  readonly port: number;
  detach(): void;
}

const EVENTS = ["uncaughtException", "unhandledRejection", "exit"];
type Listener = (...args: unknown[]) => void;
const emitter = process as unknown as NodeJS.EventEmitter;
const listenersOf = (event: string) => emitter.listeners(event) as Listener[];
let serving: Promise<number> | undefined;

export async function serveProvider(): Promise<InProcessProvider> {
  const before = new Map(EVENTS.map((e) => [e, new Set(listenersOf(e))]));
  serving ??= (async () => {
    let port = Number.NaN;
    const log = console.log;
    console.log = (s: unknown) => {
      port = Number(s);
    };
    try {
      await main(platformProvider, []);
    } finally {
      console.log = log;
    }
    if (!Number.isInteger(port)) throw new Error("the in-process provider did not say its port");
    return port;
  })();
  const port = await serving;
  const added = EVENTS.map((e) => [e, listenersOf(e).filter((l) => !before.get(e)?.has(l))] as const);
  return {
    port,
    detach: () => {
      for (const [e, ls] of added) for (const l of ls) emitter.off(e, l);
    },
  };
}
