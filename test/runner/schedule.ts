/**
 * Which test file runs next in a stage of `npm test` (scripts/test.sh, test/runner/stage.ts).
 *
 * The files of a stage run in `lanes` processes side by side, longest first by the times the
 * last measured run recorded (test/timings.json), so the stage ends close to its longest file.
 * A file listed as solo changes something every other file relies on (the engine's shared
 * edge): it starts only when no other file runs, and nothing starts beside it.
 */
export interface Job {
  file: string;
  /** What the last measured run took, or a guess for a file it did not see. */
  expectedMs: number;
  solo: boolean;
}

/** A file the timings do not know: a new test, rated like a middling integration file. */
export const UNKNOWN_FILE_MS = 60_000;

/**
 * The stage's files in the order they are tried: the solo files first, one after the other
 * (so no lane idles while the others drain for one in the middle), then the rest, longest first.
 */
export function orderJobs(files: string[], timings: Record<string, number>, solo: (file: string) => boolean): Job[] {
  return files
    .map((file) => ({ file, expectedMs: timings[file] ?? UNKNOWN_FILE_MS, solo: solo(file) }))
    .sort((a, b) => Number(b.solo) - Number(a.solo) || b.expectedMs - a.expectedMs || a.file.localeCompare(b.file));
}

/**
 * The job to start now, taken out of `queue`, or undefined: none while a solo file runs or
 * all lanes are busy; a solo file only when nothing runs; else the first file that is not solo.
 * When the first waiting file is solo and others run, the lane waits for them rather than
 * starting a shorter file, so a solo file is not starved to the end of the stage.
 */
export function takeNext(queue: Job[], running: Job[], lanes: number): Job | undefined {
  if (queue.length === 0 || running.length >= lanes || running.some((j) => j.solo)) return undefined;
  const first = queue[0] as Job;
  if (first.solo) {
    if (running.length > 0) return undefined;
    return queue.shift();
  }
  return queue.splice(0, 1)[0];
}
