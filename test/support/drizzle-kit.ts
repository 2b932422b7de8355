/**
 * drizzle-kit's API for the schema tests, without its side effect on everyone else:
 * loading it adds enumerable methods to Array.prototype and String.prototype (e.g.
 * Array.prototype.random), and every test file shares one process, so pdf.js, which
 * refuses a polluted Array.prototype, failed in the files that ran after. The methods
 * are taken off at once and put back only while one of these calls runs.
 */
import * as kit from "drizzle-kit/api";

const ADDED: [object, string][] = [
  [Array.prototype, "random"],
  ...["trimChar", "squashSpaces", "camelCase", "capitalise", "concatIf"].map(
    (k) => [String.prototype, k] as [object, string],
  ),
];
const saved = ADDED.map(([proto, key]) => [proto, key, Object.getOwnPropertyDescriptor(proto, key)] as const);
for (const [proto, key] of ADDED) delete (proto as Record<string, unknown>)[key];

/** Runs `fn` with drizzle-kit's methods in place, and takes them off again after. */
async function withKit<T>(fn: () => T | Promise<T>): Promise<T> {
  for (const [proto, key, d] of saved) if (d) Object.defineProperty(proto, key, d);
  try {
    return await fn();
  } finally {
    for (const [proto, key] of ADDED) delete (proto as Record<string, unknown>)[key];
  }
}

export const generateDrizzleJson = (...a: Parameters<typeof kit.generateDrizzleJson>) =>
  withKit(() => kit.generateDrizzleJson(...a));
export const generateSQLiteDrizzleJson = (...a: Parameters<typeof kit.generateSQLiteDrizzleJson>) =>
  withKit(() => kit.generateSQLiteDrizzleJson(...a));
export const generateMigration = (...a: Parameters<typeof kit.generateMigration>) =>
  withKit(() => kit.generateMigration(...a));
export const generateSQLiteMigration = (...a: Parameters<typeof kit.generateSQLiteMigration>) =>
  withKit(() => kit.generateSQLiteMigration(...a));
/** What drizzle-kit would change in a database to make it `imports`; its progress spinner stays off the output. */
export const pushSchema = (...a: Parameters<typeof kit.pushSchema>) =>
  withKit(async () => {
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof write;
    try {
      return await kit.pushSchema(...a);
    } finally {
      process.stdout.write = write;
    }
  });
