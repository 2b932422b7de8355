/**
 * The language detector (detect.ts says which data and why), loaded on first use: its
 * data takes 0.17 s of CPU in the executable, which parses it as JSON (scripts/compile.ts),
 * about 0.3 s from source, and 27 MB of heap, which a server spends
 * neither while it starts nor at all when no pipeline detects languages (`auto`).
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
