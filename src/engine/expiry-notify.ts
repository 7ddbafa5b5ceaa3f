import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { notifyChannelsOf } from "../config/index.js";
import { notifyMessage } from "../notify/message.js";
import { notifyChannels } from "../notify/send.js";
import type { Credentials } from "./credentials.js";
import { sayOutcomes } from "./incidents.js";
import type { Expiry } from "./env-expiry.js";
import { resolveChannels } from "./notify-channels.js";

/**
 * The `environment_expired` message of an environment about to be removed: its channels (and
 * their secrets, which go with the environment) are read now, from the platform.yml it was
 * deployed from, and the message is sent once it is gone. Undefined: nothing to tell.
 */
export async function expiryNotice(e: Expiry, creds: Credentials): Promise<((say: (line: string) => void) => Promise<void>) | undefined> {
  const channels = notifyChannelsOf(parse(readFileSync(e.configFile, "utf8")));
  if (channels.length === 0) return undefined;
  const { channels: resolved, unusable } = await resolveChannels(e.project, e.env, creds, channels);
  return async (say) => {
    for (const u of unusable) say(`⚠ notify: ${u.channel}: ${u.error}; nothing else changes`);
    const m = notifyMessage({
      event: "environment_expired",
      project: e.project,
      environment: e.env,
      since: e.expiresAt,
      message: `${e.env} expired (deploy --expires ${e.duration}) and was removed with its data`,
      command: `platform envs --project ${e.project}`,
    });
    sayOutcomes(await notifyChannels(resolved, m), "environment_expired", say);
  };
}
