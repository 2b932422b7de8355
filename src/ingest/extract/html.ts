/**
 * HTML to text: Readability keeps the main content and drops navigation, headers and
 * footers; when it finds nothing, the whole body is used. Block elements become line breaks.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";

const BLOCK = new Set(
  "address article aside blockquote dd details div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr ul".split(
    " ",
  ),
);
const LINE = new Set(["br", "td", "th"]);
/** Stands in for line breaks inside <pre> while other whitespace is tidied. */
const PRE_NEWLINE = "\uE000";
const SKIP = new Set(["script", "style", "noscript", "template", "svg", "head", "title"]);

/** The most elements Readability looks at; a larger page is read whole (its body text). */
const READABILITY_MAX_ELEMENTS = 100_000;

/** Extracts the main text of a page and its `<title>`. */
export function extractHtml(html: string): { text: string; title?: string } {
  const { document } = parseHTML(normalise(html));
  const title = document.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() || undefined;
  let text = "";
  try {
    // Past READABILITY_MAX_ELEMENTS it gives up at once (its scoring of 200,000 nested
    // elements held a worker to the 15-minute cap): the body text is the answer then.
    const page = document.cloneNode(true) as unknown as Document;
    const article = new Readability(page, { maxElemsToParse: READABILITY_MAX_ELEMENTS }).parse();
    if (article?.content) text = nodeText(parseHTML(normalise(article.content)).document.body);
  } catch {
    // Readability gives up on odd pages; the body text below is the answer then.
  }
  if (!text) text = nodeText(document.body);
  return { text, title };
}

/** All the body text of a page, with no guess at what is main content (for book chapters), and its `<title>`. */
export function htmlBodyText(html: string): { text: string; title?: string } {
  const { document } = parseHTML(normalise(html));
  const title = document.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() || undefined;
  return { text: nodeText(document.body), title };
}

/** linkedom is no HTML5 tree builder: a page without <html>/<body> gets no body, so add them. */
function normalise(html: string): string {
  if (/<body[\s>]/i.test(html)) return /<html[\s>]/i.test(html) ? html : `<html>${html}</html>`;
  return `<html><head></head><body>${html.replace(/<\/?html[^>]*>/gi, "")}</body></html>`;
}

/** Text of a subtree: whitespace collapsed except in <pre>, a blank line between blocks. */
function nodeText(root: Node | null): string {
  const out: string[] = [];
  const walk = (node: Node, pre: boolean): void => {
    if (node.nodeType === 3) {
      const text = node.textContent ?? "";
      out.push(pre ? text.replace(/\n/g, PRE_NEWLINE) : text.replace(/\s+/g, " "));
      return;
    }
    if (node.nodeType !== 1) return;
    const tag = (node as Element).tagName.toLowerCase();
    if (SKIP.has(tag)) return;
    const block = BLOCK.has(tag);
    if (block) out.push("\n\n");
    if (LINE.has(tag)) out.push(tag === "br" ? "\n" : " ");
    for (const child of node.childNodes) walk(child, pre || tag === "pre");
    if (block) out.push("\n\n");
  };
  if (root) walk(root, false);
  return out
    .join("")
    .replace(/[ \t]*\n[ \t]*/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
    .replaceAll(PRE_NEWLINE, "\n");
}
