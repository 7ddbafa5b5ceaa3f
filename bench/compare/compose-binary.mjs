// docker compose v2, built from Go modules (ENVIRONMENT.md) with the set-up's Go builder and
// the wrapper module in bench/compare/go/compose, cached by version under the platform home's
// toolchain like the Pulumi CLI. Used standalone (`docker-compose ...`), as the plugin binary.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runOk } from "./measure.mjs";

export const COMPOSE_VERSION = "v2.40.3";

export async function composeBinary(root) {
  const home = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
  const bin = join(home, "toolchain", `compose-${COMPOSE_VERSION}`, "docker-compose");
  if (existsSync(bin)) return bin;
  const moddir = join(root, "bench", "compare", "go", "compose");
  if (!readFileSync(join(moddir, "go.mod"), "utf8").includes(`github.com/docker/compose/v2 ${COMPOSE_VERSION}\n`)) {
    throw new Error(`bench/compare/go/compose/go.mod does not pin compose ${COMPOSE_VERSION}: update it with go mod tidy`);
  }
  process.stderr.write(`building docker compose ${COMPOSE_VERSION} from Go modules (about 5 minutes on 2 cores) ...\n`);
  await runOk("bash", [
    join(root, "scripts", "setup", "build-go-tool.sh"),
    moddir,
    bin,
    "github.com/docker/compose/v2/cmd",
    "",
    `-s -w -X github.com/docker/compose/v2/internal.Version=${COMPOSE_VERSION}`,
  ]);
  return bin;
}
