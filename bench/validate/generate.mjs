// Writes a realistic 50-service platform.yml (5 postgres, 45 apps, references and
// depends_on between them, migrations, health checks) with its source directories.
// Usage: node bench/validate/generate.mjs DIR [SERVICES]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function generateProject(dir, count = 50) {
  const dbs = Math.max(1, Math.round(count / 10));
  const lines = ['version: "1.0"', "name: bench", "description: 50 services with references, for the validate benchmark", "services:"];
  for (let i = 1; i <= dbs; i++) {
    lines.push(
      `  db${i}:`,
      "    type: postgres",
      "    resources:",
      "      preset: medium",
      `      storage: ${i * 10}Gi`,
      "      retention: permanent",
    );
  }
  const apps = count - dbs;
  for (let i = 1; i <= apps; i++) {
    const name = `svc${i}`;
    const db = `db${((i - 1) % dbs) + 1}`;
    const fastapi = i % 2 === 1;
    const isPublic = i % 3 === 0 || i === apps;
    mkdirSync(join(dir, name), { recursive: true });
    lines.push(`  ${name}:`, `    type: ${fastapi ? "fastapi" : "nextjs"}`);
    if (i % 5 === 0) {
      writeFileSync(join(dir, name, "Dockerfile"), "FROM scratch\n");
      lines.push("    build:", `      source: ./${name}`, "      dockerfile: Dockerfile");
    } else lines.push(`    source: ./${name}`);
    if (isPublic) lines.push("    public: true");
    lines.push(
      "    env:",
      `      DATABASE_URL: \${${db}.url}`,
      `      DB_HOST: \${${db}.host}`,
      "      LOG_LEVEL: info",
      "      WORKERS: 4",
    );
    const deps = [db];
    if (i > 1) {
      lines.push(`      UPSTREAM_URL: \${svc${i - 1}.url}`);
      deps.push(`svc${i - 1}`);
    }
    if (isPublic) lines.push(`      NEXT_PUBLIC_SELF: \${${name}.external_url}`);
    lines.push(`    depends_on: [${deps.join(", ")}]`);
    if (fastapi)
      lines.push(
        "    lifecycle:",
        "      migrate:",
        "        command: [alembic, upgrade, head]",
        "        timeout: 5m",
        "    health:",
        "      http: /health",
      );
    lines.push("    resources: small");
  }
  const file = join(dir, "platform.yml");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write("usage: node bench/validate/generate.mjs DIR [SERVICES]\n");
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true });
  process.stdout.write(`${generateProject(dir, Number(process.argv[3] ?? 50))}\n`);
}
