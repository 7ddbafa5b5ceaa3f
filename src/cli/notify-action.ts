import { requireCredentials } from "../engine/credentials.js";
import { resolveChannels } from "../engine/notify-channels.js";
import { ExitCode, VisibleError } from "../errors.js";
import { notifyMessage } from "../notify/message.js";
import { notifyChannels } from "../notify/send.js";
import { projectSigningKey } from "../notify/sign.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import type { StackOptions } from "./stack-options.js";

/** `platform notify test`: one message of event "test" to every channel, each one's outcome said. */
export async function runNotifyTest(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const channels = t.config.notify ?? [];
  if (channels.length === 0)
    throw new VisibleError(`${t.project} has no notify: channels in platform.yml`, {
      exitCode: ExitCode.failed,
      details: ["  hint: add one, e.g.\n    notify:\n      - webhook: https://hooks.example.com/platform"],
    });
  const creds = requireCredentials();
  const { channels: resolved, unusable } = await resolveChannels(t.project, t.env, creds, channels);
  const m = notifyMessage({
    event: "test",
    project: t.project,
    environment: t.env,
    since: new Date().toISOString(),
    message: "a test message from platform notify test: this channel works",
    command: `platform status${t.env === "preview" ? "" : ` --env ${t.env}`}`,
  });
  const outcomes = [
    ...unusable.map((u) => ({ channel: u.channel, ok: false, tries: 0, error: u.error })),
    ...(await notifyChannels(resolved, m)),
  ];
  if (o.json) printJson({ project: t.project, env: t.env, channels: outcomes });
  else
    for (const r of outcomes)
      process.stdout.write(
        r.ok ? `✓ ${r.channel}: sent (id ${m.id})\n` : `✖ ${r.channel}: ${r.error}${r.tries ? ` (${r.tries} tries)` : ""}\n`,
      );
  if (outcomes.some((r) => !r.ok)) process.exitCode = ExitCode.failed;
}

/** `platform notify key`: the project's signing key (derived from the login; a receiver checks messages with it). */
export async function runNotifyKey(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const creds = requireCredentials();
  process.stdout.write(`${projectSigningKey(creds.passphrase, t.project)}\n`);
}
