/**
 * The language detector (detect.ts says which data and why), loaded on first use: its
 * data takes about 0.05 s of CPU and 3 MB of heap in the executable, which reads its
 * n-grams one at a time from a packed form (eld-tables.ts), and 0.3 s and 27 MB from
 * source, which a server spends neither while it starts nor at all when no pipeline
 * detects languages (`auto`).
 * `require` leaves eld-data.ts unevaluated until the first detection, in the executable
 * too, where the bundler wraps it in a function.
 */
import type { eld as Detector } from "./eld-data";

let loaded: typeof Detector | null = null;

export const eld = {
  detect(text: string): ReturnType<typeof Detector.detect> {
    loaded ??= (require("./eld-data") as typeof import("./eld-data")).eld;
    return loaded.detect(text);
  },
};
