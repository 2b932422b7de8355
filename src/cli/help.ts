/** `ragd help`: usage, commands and every setting with its variable. */
import { settingsTable } from "../config";
import { version } from "../version";

export function helpText(): string {
  const rows = settingsTable()
    .map((s) => `  ${s.flag.padEnd(28)} ${s.env}`)
    .join("\n");
  return `ragd ${version}: a self-hosted retrieval (RAG) server in one executable.

Usage:
  ragd serve   [--host 127.0.0.1] [--port 8484] [--data-dir ./data]
  ragd user create --email E [--password P] [--tier free|pro|unlimited] [--admin] [--data-dir D] [--init]
  ragd user set-tier --email E --tier free|pro|unlimited [--data-dir D]
  ragd user set-admin --email E [--revoke] [--data-dir D]
  ragd user list [--data-dir D]
  ragd user reset-password | disable | enable --email E [--data-dir D]
  ragd user delete --email E --confirm E [--data-dir D]
  ragd admin audit [--after ID] [--data-dir D]        the audit log as JSON lines
  ragd backup  --to FILE [--data-dir D]           a consistent archive, beside a running server
  ragd restore --from FILE --data-dir D           into a new or empty directory
  ragd export  --pipeline ID --to FILE [--data-dir D]   one pipeline, vectors included
  ragd import  --from FILE --email E [--name N] [--data-dir D]
  ragd move    --to-shared | --to-data-dir [--data-dir D]   onto RAGD_DATABASE_URL and RAGD_STORAGE_URL, or back
  ragd mcp     [--url http://127.0.0.1:8484] [--key rag_… | RAGD_API_KEY]   stdio MCP bridge
  ragd ingest  DIR [--url U] [--key rag_… | RAGD_API_KEY] [--prefix P] [--delete]
               [--include GLOB]… [--exclude GLOB]… [--concurrency 4]   keep a pipeline in step with a folder
  ragd version
  ragd help

The first account is an administrator. One server per data directory. "user" and
"admin" commands work beside it, on a data directory that
already holds ragd data; --init lets "user create" start a new one.
Without --password, "user create" asks for the password (not shown as it is typed) or
reads its first line from standard input: --password shows it to every user of the
machine in process listings. New accounts get --tier, else RAGD_DEFAULT_TIER (free).

Settings (a flag wins over its environment variable):
${rows}

Dashboard at http://<host>:<port>/, API reference at http://<host>:<port>/docs.
`;
}
