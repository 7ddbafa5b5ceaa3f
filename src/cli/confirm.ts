import { createInterface } from "node:readline/promises";

/** A yes/no question on the terminal (asked on stderr): true for an answer starting with y. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
