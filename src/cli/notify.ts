import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

const work = () => import("./notify-action.js");

/** `platform notify test|key`: platform.yml's notify: channels, tried; the project's webhook signing key. */
export function registerNotify(program: Command): void {
  const notify = program.command("notify").description("the notify: channels of platform.yml: send a test message, print the signing key");
  stackOptions(notify.command("test"))
    .description("send a test message to every notify: channel (exit 1 when one fails)")
    .action(async (o) => (await work()).runNotifyTest(o));
  stackOptions(notify.command("key"))
    .description("print the key that signs webhook messages of channels without secret: (X-Platform-Signature)")
    .action(async (o) => (await work()).runNotifyKey(o));
}
