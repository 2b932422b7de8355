/**
 * What scripts/make-upgrade-fixture.ts writes into the 0.1.0 data directory and asks of it:
 * short texts on distinct subjects (so every query has a clear best answer and a tail of
 * weaker ones), a Markdown file, the line drawn into the OCR picture, and the fixed queries
 * whose answers test/upgrade.test.ts compares.
 */

/** Text sources: [name, externalId, content, metadata]. */
export const TEXTS: [string, string, string, Record<string, string | number | boolean | string[]>][] = [
  [
    "Leave policy",
    "hr/leave",
    "Every employee gets 28 days of paid leave a year. Unused leave can be carried over until the end of March. Parental leave is sixteen weeks at full pay, and can be split into two blocks.",
    { team: "hr", year: 2026, public: true, tags: ["leave", "policy"] },
  ],
  [
    "Expenses",
    "finance/expenses",
    "Expenses are reimbursed within 14 days of approval by your manager. Keep the receipts of every hotel night and train ticket; meals abroad are paid at the daily rate of the country.",
    { team: "finance", year: 2025, public: false, tags: ["money"] },
  ],
  [
    "Backups",
    "ops/backups",
    "The database is backed up every night at two o'clock to the second data centre. A restore is rehearsed on the first Monday of each quarter, and the backups are kept for ninety days.",
    { team: "ops", year: 2026, public: false, tags: ["backup", "database"] },
  ],
  [
    "Bicycle repair",
    "garage/bicycles",
    "To fix a flat tyre, take the wheel off, lever the tyre from the rim, find the puncture by pumping the tube under water, roughen the rubber, glue a patch over the hole and wait five minutes.",
    { team: "garage", year: 2024, public: true, tags: ["bike"] },
  ],
  [
    "Sourdough",
    "kitchen/sourdough",
    "A sourdough starter is flour and water fed daily until wild yeast and lactobacilli take hold. Bake when it doubles within six hours; a long cold proof in the fridge deepens the sour taste.",
    { team: "kitchen", year: 2025, public: true, tags: ["bread", "baking"] },
  ],
  [
    "Onboarding",
    "hr/onboarding",
    "New colleagues receive a laptop, a badge and a mentor on their first day. During the first week they meet each team, and after thirty days their mentor asks how the start went.",
    { team: "hr", year: 2024, public: true, tags: ["people"] },
  ],
];

/** A longer text cut into several chunks (chunk size 200 in the builtin pipeline). */
export const LONG_TEXT = [
  "The lighthouse on the northern cape was built in 1874 from granite quarried on the island.",
  "Its lamp burned paraffin until 1931, when an electric light with a rotating lens replaced it.",
  "The keepers lived in two cottages behind the tower and rowed to the mainland for supplies each fortnight.",
  "In the storm of 1953 the sea broke the lower windows, but the light never went out.",
  "Since 1988 the station has run unattended, watched from the harbour office by radio.",
  "Visitors may climb the 142 steps on summer weekends; the gallery looks out over the seal colony.",
  "A small museum in the former oil store shows the old lens, the logbooks and a keeper's uniform.",
].join(" ");

/** The uploaded Markdown file. */
export const MARKDOWN = `# Travel rules

## Booking
Book flights through the travel desk at least three weeks ahead; economy class for flights under six hours.

## Insurance
Every business trip is covered by the company's travel insurance, including lost luggage and medical care abroad.
`;

/** The line drawn into the picture that OCR reads; its words are in no other source. */
export const OCR_LINE = "Warehouse seven stores the spare turbine blades.";

/** The fixed queries, asked of each pipeline in each mode. */
export const QUERIES = [
  "How many days of paid leave do I get?",
  "when are expenses reimbursed",
  "nightly database backup and restore",
  "fix a puncture in a bicycle tyre",
  "sourdough starter yeast",
  "lighthouse keepers storm",
  "travel insurance luggage",
  "turbine blades warehouse",
  "mentor on the first day",
  "zebra quantum saxophone",
];

/** Queries with a metadata filter: [query, filter.metadata]. */
export const FILTERED: [string, Record<string, unknown>][] = [
  ["leave and onboarding for new colleagues", { team: "hr" }],
  ["what is public", { public: true, year: { $gte: 2025 } }],
  ["bread and bikes", { tags: { $in: ["bike", "bread"] } }],
];

export const MODES = ["vector", "keyword", "hybrid"] as const;

/** A source as recorded: what an upgrade must leave as it was. */
export interface RecordedSource {
  id: string;
  name: string;
  externalId: string | null;
  metadata: Record<string, unknown>;
  status: string;
  chunkCount: number;
  indexedAt: string | null;
  ocr?: { languages: string[]; pages: number };
}

/** One query's answer: result ids (`sourceId#chunkIndex`) with their scores, best first. */
export interface RecordedAnswer {
  pipeline: string;
  query: string;
  mode: string;
  filter?: Record<string, unknown>;
  results: [string, number][];
}

/** test/fixtures/upgrade-0.1.0.answers.json. */
export interface RecordedFixture {
  madeBy: { version: string; commit: string };
  madeAt: string;
  account: { email: string; password: string };
  pipelines: { glove: string; builtin: string };
  /** By pipeline id. */
  sources: Record<string, RecordedSource[]>;
  ocrSourceId: string;
  /** Words of the OCR'd picture, searched for after the upgrade. */
  ocrLine: string;
  /** By pipeline id, then key name (query, ingest, both, revoked). */
  keys: Record<string, Record<"query" | "ingest" | "both" | "revoked", string>>;
  webhook: { id: string; url: string; events: string[] | null };
  evalSet: { id: string; name: string; overall: Record<string, Record<string, number>> };
  answers: RecordedAnswer[];
}
