/**
 * Entry point: argv → command. Bad flags or values print one line and exit 2.
 */
import { helpText } from "./cli/help";
import { serveCommand } from "./cli/serve";
import { userCreateCommand, userSetTierCommand } from "./cli/user";
import { ConfigError, loadBridgeConfig, loadConfig, parseFlags } from "./config";
import { version } from "./version";

async function run(argv: string[]): Promise<number | undefined> {
  const [cmd, sub, ...rest] = argv;
  switch (cmd) {
    case "serve": {
      const { config } = loadConfig(parseFlags(argv.slice(1)));
      await serveCommand(config);
      return undefined; // keeps running
    }
    case "user": {
      const own = ["email", "password", "tier"];
      // --init is the one flag without a value: `user create` may then start a new data directory.
      const init = rest.includes("--init");
      if (init && sub !== "create") throw new ConfigError(`--init goes only with "user create"`);
      const args = init ? rest.filter((a) => a !== "--init") : rest;
      const { config, rest: flags } = loadConfig(parseFlags(args), process.env, own);
      if (sub === "create") return userCreateCommand(config, flags, init);
      if (sub === "set-tier") return userSetTierCommand(config, flags);
      throw new ConfigError(`unknown command "user ${sub ?? ""}"; use "user create" or "user set-tier"`);
    }
    case "backup":
    case "restore": {
      const { config, rest: own } = loadConfig(parseFlags(argv.slice(1)), process.env, ["to", "from"]);
      const cli = await import("./cli/backup");
      return cmd === "backup" ? cli.backupCommand(config.dataDir, own) : cli.restoreCommand(config.dataDir, own);
    }
    case "export":
    case "import": {
      const own = ["pipeline", "to", "from", "email", "name"];
      const { config, rest: flags } = loadConfig(parseFlags(argv.slice(1)), process.env, own);
      const cli = await import("./cli/transfer");
      return cmd === "export" ? cli.exportCommand(config.dataDir, flags) : cli.importCommand(config.dataDir, flags);
    }
    case "mcp":
      // Loaded only for this command: the MCP client code would slow every `ragd serve` start.
      return (await import("./cli/mcp")).mcpCommand(loadBridgeConfig(parseFlags(argv.slice(1))));
    case "version":
    case "--version":
      console.log(`ragd ${version}`);
      return 0;
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
