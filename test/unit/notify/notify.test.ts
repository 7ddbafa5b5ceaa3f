import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeConfigFs, validateConfig } from "../../../src/config/index.js";
import { tempDir } from "../../fixtures/temp-home.js";
import { emailOf, notifyMessage } from "../../../src/notify/message.js";
import { notifyChannels, type ResolvedChannel } from "../../../src/notify/send.js";
import { projectSigningKey, signBody, verifySignature } from "../../../src/notify/sign.js";

const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);

describe("webhook signatures (notify/sign.ts)", () => {
  it("verifies with the key and the body it was made with, within the tolerance only", () => {
    const header = signBody('{"event":"x"}', "k1", NOW);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature('{"event":"x"}', header, "k1", 300, NOW + 10_000)).toBe(true);
    expect(verifySignature('{"event":"y"}', header, "k1", 300, NOW)).toBe(false);
    expect(verifySignature('{"event":"x"}', header, "k2", 300, NOW)).toBe(false);
    expect(verifySignature('{"event":"x"}', header, "k1", 300, NOW + 301_000)).toBe(false);
    expect(verifySignature('{"event":"x"}', "v1=00", "k1", 300, NOW)).toBe(false);
  });

  it("the project's key: the same for the same login and project, another for another", () => {
    expect(projectSigningKey("pass", "shop")).toBe(projectSigningKey("pass", "shop"));
    expect(projectSigningKey("pass", "shop")).not.toBe(projectSigningKey("pass", "blog"));
    expect(projectSigningKey("pass", "shop")).not.toBe(projectSigningKey("other", "shop"));
  });
});

describe("messages (notify/message.ts)", () => {
  it("say the project, environment and service, and mark a resolution", () => {
    const m = notifyMessage({
      event: "deploy_failed",
      project: "shop",
      environment: "preview",
      service: "api",
      since: "t0",
      message: "it failed",
      command: "platform status",
      resolved: true,
    });
    expect(m.text).toBe("[resolved] shop (preview) api: it failed");
    expect(emailOf(m).subject).toBe("Resolved: deploy_failed in shop (preview): api");
    expect(emailOf(m).text).toContain("look with: platform status");
  });
});

describe("sending (notify/send.ts)", () => {
  it("sends only to the channels whose events take the message's event (a test goes to every one)", async () => {
    // a port nobody listens on: taken, then let go
    const server = createServer();
    const port = await new Promise<number>((r) => server.listen(0, "127.0.0.1", () => r((server.address() as { port: number }).port)));
    await new Promise((r) => server.close(r));
    const closed: ResolvedChannel = { kind: "webhook", url: `http://127.0.0.1:${port}/x`, key: "k", events: ["crash_loop"] };
    const m = (event: string) => notifyMessage({ event, project: "p", environment: "preview", since: "t", message: "m", command: "c" });
    expect(await notifyChannels([closed], m("deploy_failed"))).toEqual([]);
    const [tried] = await notifyChannels([{ ...closed, events: undefined }], { ...m("x"), event: "deploy_failed" });
    expect(tried).toMatchObject({ channel: `http://127.0.0.1:${port}`, ok: false, tries: 3 });
    expect(tried?.error).toMatch(/ECONNREFUSED/);
  }, 20_000);
});

describe("notify: in platform.yml (config/rules-notify.ts)", () => {
  const projectDir = tempDir("notify-config-");
  mkdirSync(join(projectDir, "api"));
  const check = (notify: string) =>
    validateConfig(
      `version: "1.0"\nname: shop\nnotify:\n${notify}services:\n  api:\n    type: fastapi\n    source: ./api\n    public: true\n`,
      {
        file: "platform.yml",
        projectDir,
        fs: nodeConfigFs,
        secrets: { names: new Set(["SET_ONE"]), env: "preview" },
      },
    );
  const lines = (notify: string) => check(notify).errors.map((e) => `${e.line}:${e.col} ${e.path}: ${e.message}`);

  it("takes a webhook, a signed one and an e-mail channel; warns of a secret not set", () => {
    const r = check(
      "  - webhook: https://hooks.example.com/x\n  - webhook: https://a.example/y\n    secret: ${secrets.SET_ONE}\n  - email:\n      to: ops@example.com\n      smtp: smtp://mail.example.com:587\n      password: ${secrets.NOT_SET}\n",
    );
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      "secret NOT_SET is not set in the preview environment: this channel cannot be used until it is",
    ]);
    expect(r.config?.notify?.[2]?.email?.to).toEqual(["ops@example.com"]);
  });

  it("refuses, with line and column: a key written as a value, a wrong URL, both kinds or neither", () => {
    expect(lines("  - webhook: https://h.example/x\n    secret: plain-key\n")).toEqual([
      "5:13 notify[0].secret: secret must be a ${secrets.NAME} reference, not a value written in platform.yml",
    ]);
    expect(lines("  - webhook: ftp://h.example/x\n")).toEqual(['4:14 notify[0].webhook: "ftp://h.example/x" is not a http or https URL']);
    expect(lines("  - email: {to: a@b.c, smtp: http://mail.example.com}\n")[0]).toMatch(
      /^4:\d+ notify\[0\]\.email\.smtp: "http:\/\/mail\.example\.com" is not a smtp or smtps URL$/,
    );
    expect(lines("  - webhook: https://h.example/x\n    email: {to: a@b.c, smtp: smtp://m.example}\n")[0]).toMatch(
      /notify\[0\]: a channel is a webhook or an email, not both/,
    );
    expect(lines("  - events: [deploy_failed]\n")[0]).toMatch(/notify\[0\]: a channel needs webhook: or email:/);
  });
});
