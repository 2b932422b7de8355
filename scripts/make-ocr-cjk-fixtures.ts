/**
 * Writes the OCR test pictures of Chinese and Japanese text (test/fixtures/ocr/page-<lang>.png),
 * drawn by a browser's canvas like scripts/make-ocr-fixtures.ts. Run once by hand
 * (`bun scripts/make-ocr-cjk-fixtures.ts`); needs Chromium and fonts with CJK glyphs
 * (Debian's fonts-wqy-microhei and fonts-ipafont-gothic). The tests read the committed files.
 */
import { join } from "node:path";
import { chromium } from "playwright-core";
import { OCR_LINES_BY_LANGUAGE } from "../test/support/ocr-text";

/** A font that has each language's glyphs (Simplified Chinese and Japanese forms differ). */
const FONTS = { chi_sim: "WenQuanYi Micro Hei", jpn: "IPAGothic" } as const;

const dir = join(import.meta.dir, "..", "test", "fixtures", "ocr");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
const page = await browser.newPage();
for (const [lang, lines] of Object.entries(OCR_LINES_BY_LANGUAGE)) {
  const font = FONTS[lang as keyof typeof FONTS];
  const png = await page.evaluate(
    async ({ lines, font }) => {
      const c = document.createElement("canvas");
      c.width = 1000;
      c.height = 60 + 70 * lines.length;
      const g = c.getContext("2d")!;
      g.fillStyle = "#fff";
      g.fillRect(0, 0, c.width, c.height);
      g.fillStyle = "#000";
      g.font = `36px "${font}"`;
      await document.fonts.load(g.font, lines.join(""));
      for (const [i, line] of lines.entries()) g.fillText(line, 20, 70 + 70 * i);
      const blob: Blob = await new Promise((r) => c.toBlob((b) => r(b!), "image/png"));
      return Array.from(new Uint8Array(await blob.arrayBuffer()));
    },
    { lines: [...lines], font },
  );
  await Bun.write(join(dir, `page-${lang}.png`), new Uint8Array(png));
}
await browser.close();
console.log(`wrote ${dir}`);
