/**
 * platform.yml's `start` as a container command. A string runs through sh -c, so $PORT expands
 * and `cd x && y` works; a plain command is exec'd, so the server itself gets SIGTERM on a stop
 * (a shell in between would not pass it on and the stop would wait for SIGKILL). A list runs
 * as it is, like an exec-form CMD.
 */
export function toStartCommand(start: string | readonly string[]): string[] {
  if (typeof start !== "string") return [...start];
  const text = start.trim();
  const compound = /[;&|<>()`\n]|^\s*(exec|cd|export|set|\.)\s|^\s*[A-Za-z_][A-Za-z0-9_]*=/.test(text);
  return ["/bin/sh", "-c", compound ? text : `exec ${text}`];
}

/** How a start command reads in notes and `platform plan`. */
export function describeStartCommand(command: readonly string[]): string {
  return command[0] === "/bin/sh" && command[1] === "-c" && command.length === 3 ? (command[2] as string) : JSON.stringify(command);
}
