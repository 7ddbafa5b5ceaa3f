import { homePaths } from "./layout.js";
import { readRecord } from "./records.js";

/** What the set-up installed for the platform to run with ($PLATFORM_HOME/toolchain.json). */
export interface Toolchain {
  /** Directory with `pulumi` and `pulumi-language-nodejs`. */
  pulumiBin?: string;
  /** Directory of the node binary the platform runs on. */
  nodeBin?: string;
  /** A BuildKit-capable docker client. */
  dockerCli?: string;
}

export function toolchain(): Toolchain {
  return readRecord<Toolchain>(homePaths.toolchainFile());
}
