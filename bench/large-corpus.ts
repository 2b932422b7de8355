/**
 * The documents and vectors of bench/ten-million.ts: documents of ten paragraphs, each
 * paragraph one chunk (a `recursive` pipeline of 200 characters packs no two together),
 * in the made-up language of bench/vocab.ts, and a stand-in model's vectors for them.
 *
 * Every paragraph begins with its topic's name (`topic123`), the one thing the stand-in
 * model reads to place it: its vector is the topic's centre plus two of NOISE fixed
 * directions picked by a hash of the text (cosine ≈ 0.7 to the centre, ≈ 0.5 between two
 * paragraphs of a topic, ≈ 0 across topics, as bench/dense.ts's), so neighbours are
 * near-ties among a topic's thousand chunks. A query is a topic's name and 3–6 of its
 * words; its vector is made the same way. Vectors are computed in microseconds, so the
 * stand-in keeps up with the server's ingestion at millions of chunks.
 */
import { random } from "./support";
import { sentenceOf, topicsFor } from "./vocab";

export const DIM = 384;
export const CHUNKS_PER_DOC = 10;
/** A paragraph is cut to this many characters: two never fit one 200-character chunk. */
const PARAGRAPH_CHARS = 180;
const NOISE = 16_384;
const CENTRE_SPREAD = [0.8, 0.6] as const;

/** A unit vector of Gaussian draws whose variance falls with the dimension, as in real embeddings. */
function direction(rnd: () => number): Float32Array {
  const v = new Float32Array(DIM);
  let norm = 0;
  for (let j = 0; j < DIM; j++) {
    v[j] = (Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd())) / Math.sqrt(1 + j / 24);
    norm += v[j]! * v[j]!;
  }
  norm = Math.sqrt(norm) || 1;
  for (let j = 0; j < DIM; j++) v[j]! /= norm;
  return v;
}

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The corpus for `chunks` chunks: its topics, documents and the stand-in model's vectors. */
export function largeCorpus(chunks: number) {
  const topics = topicsFor(chunks);
  const noiseRnd = random(17);
  const noise = Array.from({ length: NOISE }, () => direction(noiseRnd));
  const centres = new Map<number, Float32Array>();
  const centre = (t: number) => {
    let c = centres.get(t);
    if (!c) centres.set(t, (c = direction(random(1_000_003 + t))));
    return c;
  };
  const paragraph = (rnd: () => number, t: number) =>
    `topic${t} ${sentenceOf(rnd, 20, topics[t]!)}`.slice(0, PARAGRAPH_CHARS).replace(/\s+\S*$/, "");

  return {
    topics: topics.length,
    /** Document `d`'s external id and text (its topic is d mod topics); deterministic. */
    document(d: number): { externalId: string; content: string; topic: number } {
      const rnd = random(d + 1);
      const topic = d % topics.length;
      const paragraphs = Array.from({ length: CHUNKS_PER_DOC }, () => paragraph(rnd, topic));
      return { externalId: `doc-${d}`, content: paragraphs.join("\n\n"), topic };
    },
    /** A query: a topic's name and 3–6 of its words. */
    query(rnd: () => number): string {
      const t = Math.floor(rnd() * topics.length);
      return `topic${t} ${sentenceOf(rnd, 3 + Math.floor(rnd() * 4), topics[t]!)}`;
    },
    /** The stand-in model's vector of a text: its topic's centre and two directions its hash picks. */
    vector(text: string): number[] {
      const t = Number(/^\s*topic(\d+)/.exec(text)?.[1] ?? -1);
      const h = fnv(text);
      const [a, b] = [noise[h % NOISE]!, noise[Math.floor(h / NOISE) % NOISE]!];
      const c = t >= 0 && t < topics.length ? centre(t) : noise[(h >>> 7) % NOISE]!;
      const v = new Array<number>(DIM);
      let norm = 0;
      for (let j = 0; j < DIM; j++) {
        v[j] = c[j]! + CENTRE_SPREAD[0] * a[j]! + CENTRE_SPREAD[1] * b[j]!;
        norm += v[j]! * v[j]!;
      }
      norm = Math.sqrt(norm) || 1;
      for (let j = 0; j < DIM; j++) v[j]! /= norm;
      return v;
    },
  };
}
