import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./cli.js";
import { copyExample, forgetProject, freePort, freshBackend, removeEdge, removeProjectImages, requireToolchain, unique } from "./env.js";

/**
 * A copy of an example deployed as a project of its own, on a backend of its own, behind an edge
 * of its own (PLATFORM_EDGE_NAME, a free port): the engine's shared edge is left alone, so other
 * deploys neither disturb the test nor are disturbed by it. Call `setUp` in beforeAll and
 * `tearDown` in afterAll.
 */
export function ownEdgeProject(prefix: string, example: string) {
  const project = unique(prefix);
  const edge = `platform-edge-${project}`;
  const backend = freshBackend();
  const dir = join(mkdtempSync(join(tmpdir(), `platform-${prefix}-`)), example);
  let env: Record<string, string> = {};
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env });
  return {
    project,
    edge,
    dir,
    cli,
    deploy: () => cli("deploy", "--yes", "--project", project),
    /** The toolchain, the edge's port, the copy of the example; `extraEnv` for every command. */
    async setUp(extraEnv: Record<string, string> = {}): Promise<void> {
      requireToolchain();
      env = { ...backend, PLATFORM_EDGE_NAME: edge, PLATFORM_HTTPS_PORT: String(await freePort()), ...extraEnv };
      copyExample(example, dir);
    },
    /** Destroys the stack with its data, then removes the edge, the images and the copy. */
    async tearDown(): Promise<void> {
      await cli("destroy", "--yes", "--delete-data", "--project", project);
      removeEdge(edge);
      removeProjectImages(project);
      rmSync(dir, { recursive: true, force: true });
      forgetProject(project);
    },
  };
}
