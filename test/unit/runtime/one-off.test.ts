import { describe, expect, it } from "vitest";
import { buildRunArgs } from "../../../src/runtime/one-off.js";

describe("platform run: the docker run arguments", () => {
  const src = {
    image: "platform/shop_api:abc",
    env: ["DATABASE_URL=postgresql://app:s3cret@database:5432/app", "PATH=/app/.venv/bin:/usr/bin", "EMPTY=", "A=b=c"],
    networks: ["shop_preview"],
    memoryBytes: 536870912,
    nanoCpus: 500000000,
    pidsLimit: 512,
    labels: { "platform.project": "shop", "platform.env": "preview", "platform.service": "api" },
    user: "app",
  };

  it("copies image, network and limits; values go in the child's environment, never on argv", () => {
    const { args, env } = buildRunArgs(src, {
      name: "shop_preview_api-run-1a2b3c",
      service: "api",
      command: ["alembic", "current"],
      tty: false,
    });
    expect(args).toEqual([
      ...["run", "--rm", "-i", "--name", "shop_preview_api-run-1a2b3c"],
      ...["--label", "platform.project=shop", "--label", "platform.env=preview", "--label", "platform.run=api"],
      ...["--network", "shop_preview", "--memory", "536870912", "--cpus", "0.5", "--pids-limit", "512"],
      ...["-e", "DATABASE_URL", "-e", "PATH", "-e", "EMPTY", "-e", "A"],
      "platform/shop_api:abc",
      "alembic",
      "current",
    ]);
    expect(args.join(" ")).not.toContain("s3cret");
    expect(env).toEqual({
      DATABASE_URL: "postgresql://app:s3cret@database:5432/app",
      PATH: "/app/.venv/bin:/usr/bin",
      EMPTY: "",
      A: "b=c",
    });
  });

  it("asks for a terminal only when there is one, and is never labelled as the service", () => {
    const { args } = buildRunArgs(src, { name: "n", service: "api", command: ["sh"], tty: true });
    expect(args.slice(0, 4)).toEqual(["run", "--rm", "-i", "-t"]);
    expect(args).not.toContain("platform.service=api");
  });
});
