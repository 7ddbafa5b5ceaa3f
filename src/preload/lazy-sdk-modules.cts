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
  return new Proxy({}, {
    get: (_, k) => value(k),
    has: (_, k) => k === "__esModule" || k in real(),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, k) => ({ configurable: true, enumerable: true, value: value(k) }),
  });
}

loader._load = function (request, parent, isMain) {
  if (!LAZY.has(request) || !SDK.test(parent?.filename ?? "")) return load.call(this, request, parent, isMain);
  let m: Record<PropertyKey, unknown> | undefined;
  return standIn(() => (m ??= load.call(this, request, parent, isMain) as Record<PropertyKey, unknown>));
};
