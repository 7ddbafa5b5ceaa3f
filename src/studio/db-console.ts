import { randomBytes } from "node:crypto";
import pg from "pg";
import { listServiceContainers } from "../runtime/docker.js";
import { postgresAccess } from "../runtime/inspect.js";
import { openTunnel } from "../runtime/tunnel.js";
import type { ConnectionInfo, ResultPage, StoredResult, TableInfo } from "./api-types.js";
import { isCursorable, toCell, trimStatement } from "./db-values.js";

/** Rows a statement keeps for paging; past this the result says it was cut. */
export const MAX_ROWS = 10_000;
const STATEMENT_TIMEOUT = "30s";
/**
 * The extended protocol for the user's statement: it takes exactly one statement, so a
 * `COMMIT; INSERT ...` is refused instead of leaving the read-only transaction. (pg sends a
 * query without parameters by the simple protocol unless told; its types lack the option.)
 */
const ONE_STATEMENT = { queryMode: "extended" } as unknown as Record<string, never>;

export interface DbTarget {
  project: string;
  env: string;
  service: string;
}

interface Pool {
  pool: pg.Pool;
  info: ConnectionInfo;
  password: string;
}

/**
 * The database console: one small pool per postgres service, through a tunnel container
 * (owner "studio") published on 127.0.0.1. Every statement runs in its own transaction,
 * READ ONLY unless the caller switched writes on, and one statement per run (the extended
 * protocol refuses several), so a `COMMIT; INSERT ...` cannot leave the read-only transaction.
 */
export class DbConsole {
  private readonly pools = new Map<string, Promise<Pool>>();
  private readonly results = new Map<string, StoredResult>();

  private async open(t: DbTarget): Promise<Pool> {
    const c = (await listServiceContainers(t.project, t.env)).find((x) => x.service === t.service && x.state === "running");
    if (!c) throw new DbError(404, `${t.service} is not running in ${t.project} (${t.env})`);
    const access = await postgresAccess(c.containerId, t.service);
    if (!access) throw new DbError(400, `${t.service} is not a postgres service`);
    const tunnel = await openTunnel(access.network, access.alias, 5432, "studio");
    const pool = new pg.Pool({
      host: tunnel.host,
      port: tunnel.port,
      user: access.user,
      password: access.password,
      database: access.database,
      max: 2,
      idleTimeoutMillis: 60_000,
      connectionTimeoutMillis: 10_000,
    });
    pool.on("error", () => undefined);
    const info = {
      host: tunnel.host,
      port: tunnel.port,
      user: access.user,
      database: access.database,
      url: `postgresql://${encodeURIComponent(access.user)}:********@${tunnel.host}:${tunnel.port}/${encodeURIComponent(access.database)}`,
    };
    return { pool, info, password: access.password };
  }

  private get(t: DbTarget): Promise<Pool> {
    const key = `${t.project}/${t.env}/${t.service}`;
    let p = this.pools.get(key);
    if (!p) {
      p = this.open(t);
      this.pools.set(key, p);
      p.catch(() => this.pools.delete(key));
    }
    return p;
  }

  /** Connection details, the password masked. */
  async info(t: DbTarget): Promise<ConnectionInfo> {
    return (await this.get(t)).info;
  }

  /** The password, only when asked for it explicitly. */
  async password(t: DbTarget): Promise<string> {
    return (await this.get(t)).password;
  }

  private async inTransaction<T>(t: DbTarget, writes: boolean, body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const { pool } = await this.get(t);
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query(writes ? "BEGIN" : "BEGIN TRANSACTION READ ONLY");
      await client.query(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`);
      // A query first: after it, SET TRANSACTION READ WRITE is refused.
      await client.query("SELECT 1");
      const out = await body(client);
      await client.query(writes ? "COMMIT" : "ROLLBACK");
      return out;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** Tables with exact row counts. */
  async tables(t: DbTarget): Promise<TableInfo[]> {
    return this.inTransaction(t, false, async (c) => {
      const list = await c.query<{ schema: string; name: string }>(`SELECT n.nspname AS schema, c.relname AS name FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1, 2 LIMIT 200`);
      const out = [];
      for (const r of list.rows) {
        const n = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${c.escapeIdentifier(r.schema)}.${c.escapeIdentifier(r.name)}`);
        out.push({ ...r, rows: Number(n.rows[0]?.n ?? 0) });
      }
      return out;
    });
  }

  /** Runs one statement; the result is kept for paging and its first page returned. */
  async run(t: DbTarget, sql: string, writes: boolean): Promise<StoredResult> {
    const text = trimStatement(sql);
    if (!text) throw new DbError(400, "no statement");
    const t0 = performance.now();
    const res = await this.inTransaction(t, writes, async (c) => {
      if (isCursorable(text)) {
        await c.query({ text: `DECLARE studio_cursor NO SCROLL CURSOR FOR ${text}`, ...ONE_STATEMENT });
        const r = await c.query({ text: `FETCH ${MAX_ROWS + 1} FROM studio_cursor`, rowMode: "array" });
        return { command: "SELECT", fields: r.fields, rows: r.rows as unknown[][], rowCount: r.rows.length };
      }
      const r = await c.query({ text, rowMode: "array", ...ONE_STATEMENT });
      return { command: r.command, fields: r.fields ?? [], rows: (r.rows ?? []) as unknown[][], rowCount: r.rowCount ?? 0 };
    });
    const truncated = res.rows.length > MAX_ROWS;
    const stored: StoredResult = {
      id: randomBytes(9).toString("base64url"),
      command: res.command,
      columns: res.fields.map((f) => f.name),
      rows: res.rows.slice(0, MAX_ROWS).map((row) => row.map(toCell)),
      rowCount: truncated ? MAX_ROWS : res.command === "SELECT" ? res.rows.length : res.rowCount,
      truncated,
      ms: Math.round((performance.now() - t0) * 10) / 10,
    };
    this.results.set(stored.id, stored);
    // Only the newest results are kept.
    for (const k of [...this.results.keys()].slice(0, -20)) this.results.delete(k);
    return stored;
  }

  page(id: string, offset: number, limit: number): ResultPage | undefined {
    const r = this.results.get(id);
    if (!r) return undefined;
    const o = Math.max(0, Math.floor(offset));
    return { id, offset: o, rows: r.rows.slice(o, o + Math.min(500, Math.max(1, Math.floor(limit)))), total: r.rows.length };
  }

  async close(): Promise<void> {
    for (const p of this.pools.values()) await p.then((x) => x.pool.end()).catch(() => undefined);
    this.pools.clear();
  }
}

export class DbError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}
