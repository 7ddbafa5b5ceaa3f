import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Usage } from "../runtime/stats.js";
import type { Sample } from "./api-types.js";

/** Samples older than this are deleted as new ones arrive. */
const KEEP_MS = 7 * 24 * 3600 * 1000;

/** CPU and memory history per service: a small SQLite file in the Studio directory. */
export class StatsStore {
  private readonly db: DatabaseSync;

  constructor(file: string) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.db = new DatabaseSync(file);
    this.db.exec(`PRAGMA journal_mode = WAL;
      CREATE TABLE IF NOT EXISTS samples (project TEXT NOT NULL, env TEXT NOT NULL, service TEXT NOT NULL,
        at INTEGER NOT NULL, cpu REAL NOT NULL, mem INTEGER NOT NULL, mem_limit INTEGER);
      CREATE INDEX IF NOT EXISTS samples_scope ON samples (project, env, at);`);
  }

  add(scope: { project: string; env: string; service: string }, at: number, u: Usage): void {
    this.db
      .prepare("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(scope.project, scope.env, scope.service, at, u.cpuPercent, u.memoryBytes, u.memoryLimitBytes);
  }

  prune(now = Date.now()): void {
    this.db.prepare("DELETE FROM samples WHERE at < ?").run(now - KEEP_MS);
  }

  /** Per service, its samples in [from, to), oldest first; containers of one service sampled together are summed. */
  series(project: string, env: string, from: number, to: number): Record<string, Sample[]> {
    const rows = this.db
      .prepare(`SELECT service, at, SUM(cpu) AS cpu, SUM(mem) AS mem, MAX(mem_limit) AS mem_limit FROM samples
      WHERE project = ? AND env = ? AND at >= ? AND at < ? GROUP BY service, at ORDER BY at`)
      .all(project, env, from, to) as { service: string; at: number; cpu: number; mem: number; mem_limit: number | null }[];
    const out: Record<string, Sample[]> = {};
    for (const r of rows) {
      out[r.service] ??= [];
      out[r.service]!.push({ at: r.at, cpuPercent: r.cpu, memoryBytes: r.mem, memoryLimitBytes: r.mem_limit });
    }
    return out;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
