/**
 * The language detector (detect.ts says which data and why), loaded on first use: its
 * data takes a few milliseconds of CPU and 3 MB of heap in the executable, which carries
 * its n-grams packed (eld-tables.ts), and 0.3 s and 27 MB from source, which a server
 * spends neither while it starts nor at all when no pipeline detects languages (`auto`).
 * `require` leaves eld-data.ts unevaluated until the first detection, in the executable
 * too, where the bundler wraps it in a function.
 */
import type { Detection } from "./eld-detect";

let loaded: ((text: string) => Detection) | null = null;

export const eld = {
  detect(text: string): Detection {
    loaded ??= (require("./eld-data") as typeof import("./eld-data")).detectLanguage;
    return loaded(text);
  },
};
