/**
 * argv → command (loaded by main.ts). Bad flags or values print one line and exit 2.
 */
import { helpText } from "./help";
import { createPrivately } from "./private-data-dir";
import { serveCommand } from "./serve";
import { userCreateCommand, userSetTierCommand } from "./user";
import {
  adminAuditCommand,
  userDeleteCommand,
  userListCommand,
  userResetPasswordCommand,
  userSetAdminCommand,
  userSetDisabledCommand,
} from "./user-admin";
import { ConfigError, loadConfig, parseFlags } from "../config";
import { loadBridgeConfig } from "../config-bridge";
import { requireLocalStorage, requireServableStorage } from "../config-storage";

async function run(argv: string[]): Promise<number | undefined> {
  const [cmd, sub, ...rest] = argv;
  // Before any command writes: the data directory, backups and exports hold secrets.
  createPrivately();
  switch (cmd) {
    case "serve": {
      const { config } = servableConfig(parseFlags(argv.slice(1)));
      await serveCommand(config);
      return undefined; // keeps running
    }
    case "user":
      return userCommand(sub, rest);
    case "admin": {
      if (sub !== "audit") throw new ConfigError(`unknown command "admin ${sub ?? ""}"; use "admin audit"`);
      const { config, rest: flags } = servableConfig(parseFlags(rest), ["after"]);
      return adminAuditCommand(config, flags);
    }
    case "backup":
    case "restore": {
      const { config, rest: own } = localConfig(cmd, parseFlags(argv.slice(1)), ["to", "from"]);
      const cli = await import("./backup");
      return cmd === "backup" ? cli.backupCommand(config.dataDir, own) : cli.restoreCommand(config.dataDir, own);
    }
    case "export":
    case "import": {
      const own = ["pipeline", "to", "from", "email", "name"];
      const { config, rest: flags } = localConfig(cmd, parseFlags(argv.slice(1)), own);
      const cli = await import("./transfer");
      return cmd === "export" ? cli.exportCommand(config.dataDir, flags) : cli.importCommand(config.dataDir, flags);
    }
    case "ingest":
      // A client of a running server, like `mcp`: no data directory of its own.
      return (await import("./ingest")).ingestCommand(argv.slice(1));
    case "mcp":
      // Loaded only for this command: the MCP client code would slow every `ragd serve` start.
      return (await import("./mcp")).mcpCommand(loadBridgeConfig(parseFlags(argv.slice(1))));
    case "move":
      // Reads its own --to-shared / --to-data-dir, then the settings as `serve` does.
      return (await import("./move")).moveCommand(argv.slice(1));
    case "migrate":
      // Not in the help: `serve` migrates its database itself; this one applies the migrations alone (docs/operations.md, PostgreSQL).
      return (await import("./migrate")).migrateCommand(loadConfig(parseFlags(argv.slice(1))).config);
    case "build-vector-index":
      // Not in the help: the server runs it to train an ANN index apart from its own threads.
      return (await import("../vectors/index-build")).buildIndexCommand(argv.slice(1));
    // "version" and "--version" are answered by main.ts, before this file is loaded.
    case "help":
    case "--help":
    case "-h":
    case undefined:
      console.log(helpText());
      return 0;
    default:
      throw new ConfigError(`unknown command "${cmd}"; run "ragd help"`);
  }
}

/**
 * The configuration of `serve` and of the commands beside it: metadata in the data
 * directory or PostgreSQL, vectors and files there or in a bucket (docs/configuration.md).
 */
function servableConfig(flags: Record<string, string>, own: string[] = []) {
  const loaded = loadConfig(flags, process.env, own);
  requireServableStorage(loaded.config);
  return loaded;
}

/** The configuration of a command that copies the whole data directory: no bucket either. */
function localConfig(command: string, flags: Record<string, string>, own: string[] = []) {
  const loaded = loadConfig(flags, process.env, own);
  requireLocalStorage(loaded.config, command);
  return loaded;
}

/** Flags without a value, per `user` command. */
const SWITCHES: Record<string, string[]> = { create: ["init", "admin"], "set-admin": ["revoke"] };

async function userCommand(sub: string | undefined, rest: string[]): Promise<number> {
  const allowed = SWITCHES[sub ?? ""] ?? [];
  const on = new Set<string>();
  const args = rest.filter((a) => {
    const name = a.startsWith("--") ? a.slice(2) : "";
    if (!Object.values(SWITCHES).flat().includes(name)) return true;
    if (!allowed.includes(name)) throw new ConfigError(`--${name} does not go with "user ${sub ?? ""}"`);
    on.add(name);
    return false;
  });
  const own = ["email", "password", "tier", "confirm"];
  const { config, rest: flags } = servableConfig(parseFlags(args), own);
  switch (sub) {
    case "create":
      return userCreateCommand(config, flags, on.has("init"), on.has("admin"));
    case "set-tier":
      return userSetTierCommand(config, flags);
    case "set-admin":
      return userSetAdminCommand(config, flags, on.has("revoke"));
    case "list":
      return userListCommand(config);
    case "reset-password":
      return userResetPasswordCommand(config, flags);
    case "disable":
    case "enable":
      return userSetDisabledCommand(config, flags, sub === "disable");
    case "delete":
      return userDeleteCommand(config, flags);
    default:
      throw new ConfigError(
        `unknown command "user ${sub ?? ""}"; use create, set-tier, set-admin, list, reset-password, disable, enable or delete`,
      );
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (err) => {
    if (err instanceof ConfigError) {
      console.error(`ragd: ${err.message}`);
      process.exit(2);
    }
    console.error(`ragd: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
