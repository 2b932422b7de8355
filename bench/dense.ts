/**
 * Vectors shaped like a dense embedding model's, for ANN benches at sizes no real
 * model can embed here in time: one centre per topic, one offset per document and one
 * per chunk, each drawn from an anisotropic Gaussian (variance falling with the
 * dimension, as in real embeddings, where a few directions carry most of it), summed
 * and normalised. Chunks of one document have cosine ≈ 0.8, of one topic ≈ 0.5, of
 * different topics ≈ 0; a query is a fresh document's chunk in its text's topic, so
 * its neighbours are near-ties among a topic's thousand chunks, as with real text.
 */
import { random } from "./support";

const DOC_SPREAD = 0.8;
const CHUNK_SPREAD = 0.6;

/** Dense vectors of `dim` dimensions for `topics` topics; deterministic for a seed. */
export function denseSpace(dim: number, topics: number, seed = 11) {
  const scale = Float32Array.from({ length: dim }, (_, j) => 1 / Math.sqrt(1 + j / 24));
  const gauss = (rnd: () => number, out: Float32Array, weight: number) => {
    let norm = 0;
    const tmp = new Float32Array(dim);
    for (let j = 0; j < dim; j++) {
      tmp[j] = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd()) * scale[j]!;
      norm += tmp[j]! * tmp[j]!;
    }
    const k = weight / Math.sqrt(norm);
    for (let j = 0; j < dim; j++) out[j]! += tmp[j]! * k;
    return out;
  };
  const unit = (v: Float32Array) => {
    const n = Math.hypot(...v) || 1;
    for (let j = 0; j < dim; j++) v[j]! /= n;
    return v;
  };
  const crnd = random(seed);
  const centres = Array.from({ length: topics }, () => gauss(crnd, new Float32Array(dim), 1));
  const docs = new Map<number, Float32Array>();
  return {
    /** Chunk vector of document `doc` (topic doc % topics); documents are drawn once each. */
    chunk(doc: number, rnd: () => number): Float32Array {
      let base = docs.get(doc);
      if (!base) {
        docs.clear(); // documents are written one after another
        base = gauss(rnd, Float32Array.from(centres[doc % topics]!), DOC_SPREAD);
        docs.set(doc, base);
      }
      return unit(gauss(rnd, Float32Array.from(base), CHUNK_SPREAD));
    },
    /** The query vector of a text: a chunk of a new document in a topic chosen by the text's hash. */
    query(text: string): Float32Array {
      let h = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
      const rnd = random(h);
      const base = gauss(rnd, Float32Array.from(centres[Math.floor(rnd() * topics)]!), DOC_SPREAD);
      return unit(gauss(rnd, base, CHUNK_SPREAD));
    },
  };
}
