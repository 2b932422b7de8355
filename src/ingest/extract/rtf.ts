/**
 * RTF to text: a reader of the RTF 1.9 syntax, not a renderer. Groups, control words and
 * symbols are tokenised; destinations that hold no body text (font, colour and style tables,
 * document info, pictures, objects, field instructions, and every `{\*…}` group) are
 * skipped; `\uN` is Unicode with `\ucN` fallback characters skipped after it; `\'hh` bytes
 * and 8-bit characters are decoded with the document's code page (`\ansicpg`, default 1252).
 */
import { ExtractionError } from "./errors";

/** Destinations whose text is not part of the document's body. */
const SKIP = new Set(
  "fonttbl colortbl stylesheet info pict object objdata datastore themedata colorschememapping latentstyles listtable listoverridetable revtbl rsidtbl generator xmlnstbl filetbl fldinst header headerl headerr headerf footer footerl footerr footerf nonshppict shppict shpinst sp sn sv bkmkstart bkmkend template userprops docvar".split(
    " ",
  ),
);
/** Control words that stand for text. */
const TEXT: Record<string, string> = {
  par: "\n\n",
  sect: "\n\n",
  page: "\n\n",
  line: "\n",
  row: "\n",
  tab: "\t",
  emdash: "\u2014",
  endash: "\u2013",
  emspace: " ",
  enspace: " ",
  qmspace: " ",
  bullet: "\u2022",
  lquote: "\u2018",
  rquote: "\u2019",
  ldblquote: "\u201c",
  rdblquote: "\u201d",
};
/** Table cells end with \cell; marked here and turned into ` | ` between cells at the end. */
const CELL = "\uE001";
/** `\word`, an optional signed number, and the one space that may end it. */
const CONTROL_WORD = /\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/y;
const PLAIN = /[\x20-\x5b\x5d-\x7a\x7c\x7e]/;
const PLAIN_RUN = /[\x20-\x5b\x5d-\x7a\x7c\x7e]+/y;
const SYMBOLS: Record<string, string> = { "~": "\u00a0", _: "-", "-": "", "\\": "\\", "{": "{", "}": "}" };
const CODE_PAGES: Record<number, string> = {
  932: "shift_jis",
  936: "gbk",
  949: "euc-kr",
  950: "big5",
  10000: "macintosh",
};

interface Group {
  skip: boolean;
  uc: number;
}

/** True when the bytes start like an RTF document. */
export function isRtf(bytes: Uint8Array): boolean {
  return new TextDecoder("latin1")
    .decode(bytes.subarray(0, 16))
    .replace(/^\xef\xbb\xbf|^\s+/g, "")
    .startsWith("{\\rtf");
}

/** The plain text of an RTF document. */
export function rtfToText(bytes: Uint8Array): string {
  const src = new TextDecoder("latin1").decode(bytes);
  if (!isRtf(bytes)) throw new ExtractionError("content is not a valid rtf file");
  const r = new RtfReader(src);
  r.read();
  return r.finish();
}

class RtfReader {
  private out: string[] = [];
  private bytes: number[] = [];
  private decoder = new TextDecoder("windows-1252");
  private group: Group = { skip: false, uc: 1 };
  private stack: Group[] = [];
  /** Fallback characters still to drop after a \uN. */
  private pendingSkip = 0;
  /** True right after `{`: the next control word may name a destination. */
  private fresh = false;
  private i = 0;

  constructor(private src: string) {}

  read(): void {
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "{") {
        this.flush();
        this.stack.push(this.group);
        this.group = { ...this.group };
        this.fresh = true;
        this.pendingSkip = 0;
        this.i++;
      } else if (c === "}") {
        this.flush();
        this.group = this.stack.pop() ?? this.group;
        this.fresh = false;
        this.pendingSkip = 0;
        this.i++;
      } else if (c === "\\") this.control();
      else if (this.pendingSkip === 0 && PLAIN.test(c)) {
        // A run of plain ASCII text at once: one piece instead of one per character.
        PLAIN_RUN.lastIndex = this.i;
        const run = PLAIN_RUN.exec(s)![0];
        this.i += run.length;
        this.fresh = false;
        this.emit(run);
      } else {
        this.i++;
        if (c === "\r" || c === "\n") continue;
        this.fresh = false;
        if (this.skipFallback()) continue;
        if (c.charCodeAt(0) > 0x7f) this.bytes.push(c.charCodeAt(0));
        else this.emit(c);
      }
    }
  }

  finish(): string {
    this.flush();
    return this.out
      .join("")
      .replace(/\u00a0/g, " ")
      .replace(new RegExp(`${CELL}[ \\t]*(\\n|$)`, "g"), "\n")
      .replaceAll(CELL, " | ")
      .replace(/[ \t]+/g, " ")
      .replace(/ *\n */g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }

  private control(): void {
    CONTROL_WORD.lastIndex = this.i;
    const m = CONTROL_WORD.exec(this.src);
    if (!m) {
      this.symbol();
      return;
    }
    this.i += m[0].length;
    const word = m[1]!;
    const arg = m[2] === undefined ? undefined : Number(m[2]);
    const first = this.fresh;
    this.fresh = false;
    if (word === "bin") {
      this.i += Math.max(arg ?? 0, 0);
      return;
    }
    if (first && SKIP.has(word)) this.group.skip = true;
    if (word === "ansicpg" && arg) this.setCodePage(arg);
    else if (word === "uc") this.group.uc = Math.max(arg ?? 1, 0);
    else if (word === "u" && arg !== undefined) {
      this.flush();
      if (!this.group.skip) this.out.push(String.fromCharCode(arg < 0 ? arg + 65536 : arg));
      this.pendingSkip = this.group.uc;
    } else if (this.skipFallback()) return;
    else if (word === "cell") this.emit(CELL);
    else if (TEXT[word] !== undefined) this.emit(TEXT[word]!);
  }

  private symbol(): void {
    const s = this.src;
    const c = s[this.i + 1] ?? "";
    if (c === "'") {
      const hex = s.slice(this.i + 2, this.i + 4);
      this.i += 4;
      this.fresh = false;
      if (this.skipFallback()) return;
      if (/^[0-9a-fA-F]{2}$/.test(hex)) this.bytes.push(Number.parseInt(hex, 16));
      return;
    }
    this.i += 2;
    if (c === "*" && this.fresh) {
      this.group.skip = true;
      return;
    }
    this.fresh = false;
    if (c === "\r" || c === "\n") {
      this.emit("\n\n");
      return;
    }
    if (this.skipFallback()) return;
    const text = SYMBOLS[c];
    if (text !== undefined) this.emit(text);
  }

  /** True (and counts it) when the current character is a \uN fallback to drop. */
  private skipFallback(): boolean {
    if (this.pendingSkip === 0) return false;
    this.pendingSkip--;
    return true;
  }

  private emit(text: string): void {
    this.flush();
    this.pendingSkip = 0;
    if (!this.group.skip) this.out.push(text);
  }

  /** Decodes buffered code-page bytes together, so double-byte code pages read right. */
  private flush(): void {
    if (this.bytes.length === 0) return;
    if (!this.group.skip) this.out.push(this.decoder.decode(Uint8Array.from(this.bytes)));
    this.bytes = [];
  }

  private setCodePage(cp: number): void {
    try {
      this.decoder = new TextDecoder(CODE_PAGES[cp] ?? `windows-${cp}`);
    } catch {
      // An unknown code page keeps windows-1252, which reads most Western documents.
    }
  }
}
