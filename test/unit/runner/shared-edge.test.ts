import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The engine's shared edge (`platform-edge`, 127.0.0.1:443) carries every Docker stack's traffic
 * and, in the cluster stage, that of the Kubernetes stacks without a front door, while the docker
 * stage runs beside it. A test that moves that edge to another port, or removes or stops it, cuts
 * the others' requests (kubernetes-backups failed with ECONNREFUSED 127.0.0.1:443 while catalog
 * moved it). Such a test runs behind an edge of its own: PLATFORM_EDGE_NAME and a free port.
 */
const DIR = join(import.meta.dirname, "..", "..", "integration");
const DISTURBS = [
  { what: "moves the edge to another port", re: /"--https?-port"/ },
  { what: "removes or stops the engine's edge", re: /"(rm|stop|kill|restart)",[^\n]*"platform-edge"/ },
];

describe("integration tests leave the engine's shared edge alone", () => {
  it("a file that moves, removes or stops an edge names its own (PLATFORM_EDGE_NAME)", () => {
    const offenders: string[] = [];
    for (const file of readdirSync(DIR).filter((f) => f.endsWith(".test.ts"))) {
      const text = readFileSync(join(DIR, file), "utf8");
      if (text.includes("PLATFORM_EDGE_NAME")) continue;
      for (const d of DISTURBS) if (d.re.test(text.replace(/\/\/[^\n]*/g, ""))) offenders.push(`${file}: ${d.what}`);
    }
    expect(offenders, "run these behind an edge of their own (helpers/own-edge.ts, or PLATFORM_EDGE_NAME and a free port)").toEqual([]);
  });

  it("the check sees the shapes it looks for", () => {
    expect(DISTURBS[0]?.re.test('runCli(["deploy", "--https-port", "9443"])')).toBe(true);
    expect(DISTURBS[1]?.re.test('docker("rm", "-f", "platform-edge");')).toBe(true);
  });
});
