/**
 * Loaded first in every Node process of a deploy (the CLI, the Pulumi program, the provider
 * plugin): @pulumi/pulumi loads, with its runtime, the modules its closure serialization needs
 * (@npmcli/arborist with pacote and sigstore, typescript, normalize-package-data), about a
 * third of its load time, and the platform never serializes a closure. Those requests, made
 * from inside @pulumi/pulumi, get a stand-in that loads the real module on first use.
 * The stand-in answers as an ES module whose default is the module itself, which is what the
 * SDK's compiled imports (__importStar, __importDefault, plain require) expect.
 */
import Module = require("node:module");

/**
 * The Pulumi program's runner registers ts-node (loading TypeScript: about 0.2 s of every deploy)
 * when PULUMI_NODEJS_TYPESCRIPT is "true". The Node.js language host the set-up builds (sdk
 * v3.68.0, the last release with a module of its own) reads Pulumi.yaml's `typescript: false`
 * only as a flag, which today's engine no longer passes, so it always says "true". The
 * platform's program is JavaScript: there is nothing to compile.
 */
if (/[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]run[\\/]/.test(process.argv[1] ?? "")) process.env.PULUMI_NODEJS_TYPESCRIPT = "false";

const LAZY = new Set(["@npmcli/arborist", "typescript", "normalize-package-data"]);
const SDK = /[\\/]node_modules[\\/]@pulumi[\\/]pulumi[\\/]/;

type Load = (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown;
const loader = Module as unknown as { _load: Load };
const load = loader._load;

function standIn(real: () => Record<PropertyKey, unknown>): object {
  const value = (k: PropertyKey) => {
    if (k === "__esModule") return true;
    const m = real();
    return k === "default" && !("default" in m) ? m : m[k];
  };
  return new Proxy(
    {},
    {
      get: (_, k) => value(k),
      has: (_, k) => k === "__esModule" || k in real(),
      ownKeys: () => Reflect.ownKeys(real()),
      getOwnPropertyDescriptor: (_, k) => ({ configurable: true, enumerable: true, value: value(k) }),
    },
  );
}

/**
 * dockerode's docker-modem loads its SSH transport (ssh2, which compiles a WebAssembly module
 * and reserves its memory) whatever DOCKER_HOST is: about 15 MiB of every process that talks
 * to Docker, the CLI's and the provider's. The transport is a function called once per ssh://
 * connection; a stand-in function loads it on that first call.
 */
const MODEM = /[\\/]node_modules[\\/]docker-modem[\\/]lib[\\/]modem\.js$/;

loader._load = function (request, parent, isMain) {
  if (request === "./ssh" && MODEM.test(parent?.filename ?? "")) {
    let ssh: ((...args: unknown[]) => unknown) | undefined;
    return (...args: unknown[]) => {
      ssh ??= load.call(this, request, parent, isMain) as (...args: unknown[]) => unknown;
      return ssh(...args);
    };
  }
  if (!LAZY.has(request) || !SDK.test(parent?.filename ?? "")) return load.call(this, request, parent, isMain);
  let m: Record<PropertyKey, unknown> | undefined;
  return standIn(() => (m ??= load.call(this, request, parent, isMain) as Record<PropertyKey, unknown>));
};
