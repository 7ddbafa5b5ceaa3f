/**
 * The one error type meant for people (after sst's VisibleError): its message is printed as
 * is, without a stack. Anything else that escapes to bin.ts is a bug and is reported as one.
 */
export class VisibleError extends Error {
  /** Process exit code for this error (see docs/reference/exit-codes.md). */
  readonly exitCode: number;
  /** Extra lines printed after the message: a log tail, where the full log is. */
  readonly details: string[];

  constructor(message: string, opts: { exitCode?: number; details?: string[] } = {}) {
    super(message);
    this.name = "VisibleError";
    this.exitCode = opts.exitCode ?? 1;
    this.details = opts.details ?? [];
  }
}

/** Exit codes, documented in docs/reference/exit-codes.md. */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  notLoggedIn: 3,
  environment: 4,
  /** Stopped by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
  bug: 70,
} as const;

/** A usage error (exit 2) with its hint: how flag checks say what to fix. */
export const usageError = (message: string, hint: string): VisibleError =>
  new VisibleError(message, { exitCode: ExitCode.usage, details: [`  hint: ${hint}`] });
