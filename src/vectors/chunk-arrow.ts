/**
 * Chunk rows as Arrow: the schema of a chunk table and the columns written into it,
 * each built straight into its buffers (Arrow's own builders go value by value).
 */
import * as arrow from "apache-arrow";
import { metadataTerms } from "./meta-index";
import type { ChunkRow } from "./tables";

/**
 * The Arrow schema of a table whose vectors have `dim` dimensions; `analysed`, with the
 * columns of its text as analysed for the full-text index (text/analyze.ts).
 */
export function chunkSchema(dim: number, analysed = false): arrow.Schema {
  const analysis = analysed
    ? [new arrow.Field("terms", new arrow.Utf8(), false), new arrow.Field("grams", new arrow.Utf8(), false)]
    : [];
  return new arrow.Schema([
    new arrow.Field("id", new arrow.Utf8(), false),
    new arrow.Field("document_id", new arrow.Utf8(), false),
    new arrow.Field("chunk_index", new arrow.Int32(), false),
    new arrow.Field("text", new arrow.Utf8(), false),
    new arrow.Field("start", new arrow.Int32(), false),
    new arrow.Field("end", new arrow.Int32(), false),
    new arrow.Field("vector", vectorType(dim), false),
    metadataField(),
    metadataTermsField(),
    ...analysis,
  ]);
}

/**
 * The metadata column: UTF-8 JSON marked `arrow.json`, which LanceDB stores as
 * binary JSON that its `json_get*` filter functions read.
 */
export function metadataField(): arrow.Field {
  return new arrow.Field("metadata", new arrow.Utf8(), true, new Map([["ARROW:extension:name", "arrow.json"]]));
}

/** The metadata's set-membership facts as a list of strings, for a LABEL_LIST index (meta-index.ts). */
export function metadataTermsField(): arrow.Field {
  return new arrow.Field("metadata_terms", new arrow.List(new arrow.Field("item", new arrow.Utf8(), true)), true);
}

function vectorType(dim: number) {
  return new arrow.FixedSizeList(dim, new arrow.Field("item", new arrow.Float32(), true));
}

/** Column-wise Arrow table of rows; every vector must have the same dimension. */
export function rowsToArrow(rows: ChunkRow[]): arrow.Table {
  const dim = rows[0]!.vector.length;
  const flat = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => {
    if (r.vector.length !== dim) throw new Error(`row ${r.id} has ${r.vector.length} dimensions, expected ${dim}`);
    flat.set(r.vector, i * dim);
  });
  const floats = arrow.makeData({ type: new arrow.Float32(), length: flat.length, data: flat });
  const vectors = arrow.makeData({ type: vectorType(dim), length: rows.length, nullCount: 0, child: floats });
  const str = (f: (r: ChunkRow) => string) => utf8Data(rows.map(f));
  const int = (f: (r: ChunkRow) => number) =>
    arrow.makeData({ type: new arrow.Int32(), length: rows.length, data: Int32Array.from(rows, f) });
  const analysed = rows[0]!.terms !== undefined;
  if (rows.some((r) => (r.terms !== undefined) !== analysed || (r.grams !== undefined) !== analysed))
    throw new Error("rows with and without analysed text in one write");
  const schema = chunkSchema(dim, analysed);
  const children = [
    str((r) => r.id),
    str((r) => r.documentId),
    int((r) => r.chunkIndex),
    str((r) => r.text),
    int((r) => r.start),
    int((r) => r.end),
    vectors,
    str((r) => r.metadata ?? "{}"),
    termsData(rows.map((r) => r.metadata ?? "{}")),
    ...(analysed ? [str((r) => r.terms!), str((r) => r.grams!)] : []),
  ];
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.Table([new arrow.RecordBatch(schema, struct)]);
}

/** The term lists of the rows' metadata; rows of one document share their JSON, so each is parsed once. */
function termsData(metadata: string[]): arrow.Data<arrow.List<arrow.Utf8>> {
  const seen = new Map<string, string[]>();
  const lists = metadata.map((m) => seen.get(m) ?? seen.set(m, metadataTerms(m)).get(m)!);
  const offsets = new Int32Array(lists.length + 1);
  for (let i = 0; i < lists.length; i++) offsets[i + 1] = offsets[i]! + lists[i]!.length;
  const field = metadataTermsField();
  return arrow.makeData({
    type: field.type as arrow.List<arrow.Utf8>,
    length: lists.length,
    nullCount: 0,
    valueOffsets: offsets,
    child: utf8Data(lists.flat()),
  });
}

/**
 * A UTF-8 column written straight into one buffer (Arrow's own builder goes value by
 * value). The buffer is not zeroed first, and each value is written at its offset without
 * a view of its own: for a thousand chunk texts, 115 µs against 360 with a zeroed
 * Uint8Array and TextEncoder.encodeInto into a subarray per value.
 */
function utf8Data(values: string[]): arrow.Data<arrow.Utf8> {
  let bound = 0;
  for (const v of values) bound += v.length * 3; // a UTF-16 unit never takes more than 3 bytes
  // Not from Buffer's shared pool: the column owns its memory.
  const bytes = Buffer.allocUnsafeSlow(bound);
  const offsets = new Int32Array(values.length + 1);
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    at += bytes.write(values[i]!, at, "utf8");
    offsets[i + 1] = at;
  }
  return arrow.makeData({
    type: new arrow.Utf8(),
    length: values.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: bytes.subarray(0, at),
  });
}
