/** ragd's version, from package.json (bundled into the binary). */
import pkg from "../package.json" with { type: "json" };

export const version: string = pkg.version;
