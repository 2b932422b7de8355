/**
 * The small retrieval corpus the retrieval tests search: text, file and url sources on
 * distinct topics, each with a rare term, and the shape of a hit.
 */
import type { Client } from "./ingest";

/** One source per topic; `term` is its rare word, `ask` a query made of its own words. */
export const CORPUS = [
  {
    name: "Volcano",
    term: "Tharsiswick",
    ask: "volcano covering the valley in grey ash",
    text: "The Tharsiswick volcano on Mount Orvelle erupted in 1893, covering the valley of Brindlemoor in grey ash for three weeks.",
  },
  {
    name: "Deploy error",
    term: "ERR_7731",
    ask: "deployment fails signing certificate",
    text: "Deployment fails with error code ERR_7731 when the configuration file lacks a signing certificate; regenerate the certificate and redeploy.",
  },
  {
    name: "Pump part",
    term: "PX-9912-B",
    ask: "hydraulic pump for the Kestrel loader",
    text: "Replacement hydraulic pump part number PX-9912-B fits the Kestrel loader models built after 2014.",
  },
  {
    name: "Fungus",
    term: "Vasquez-Holloway",
    ask: "luminous fungus in the caves",
    text: "Professor Ingrid Vasquez-Holloway discovered the luminous fungus Mycena aurorae in the caves of Quillamar.",
  },
  {
    name: "Sourdough",
    term: "banneton",
    ask: "knead the dough with rye flour",
    text: "To bake sourdough bread, feed the starter twice, knead the dough with rye flour and proof it overnight in a cold banneton.",
  },
  {
    name: "Exoplanet",
    term: "Zephyrion-4b",
    ask: "exoplanet orbits a red dwarf",
    text: "The exoplanet Zephyrion-4b orbits a red dwarf every nine days; its atmosphere shows traces of methane and water vapour.",
  },
  {
    name: "Invoice",
    term: "INV-20417",
    ask: "invoice paid late purchase order",
    text: "Quarterly invoice INV-20417 from Marbleton Logistics was paid late because the purchase order number was missing.",
  },
  {
    name: "Chess",
    term: "Pribytko",
    ask: "Ruy Lopez opening bishop pins the knight",
    text: "In the Ruy Lopez opening, the bishop pins the knight; grandmaster Oleksandr Pribytko favoured the Berlin defence.",
  },
  {
    name: "Bees",
    term: "Valdorre",
    ask: "harvest heather honey varroa mites",
    text: "Beekeepers in Valdorre harvest heather honey in August and treat the hives against varroa mites with oxalic acid.",
  },
  {
    name: "Router",
    term: "VLAN-4093",
    ask: "router drops packets MTU jumbo frames",
    text: "The router drops packets on VLAN-4093 when the MTU exceeds 1500 bytes; enable jumbo frames on the trunk port.",
  },
  {
    name: "Trial",
    term: "velcorastat",
    ask: "migraine frequency phase three trial",
    text: "The drug velcorastat reduced migraine frequency by forty percent in the phase three trial at Lindqvist Hospital.",
  },
  {
    name: "Schooner",
    term: "Albatross",
    ask: "schooner reefing the mainsail in a gale",
    text: "The schooner Albatross Wren rounded Cape Morrow in a gale, reefing the mainsail twice before dawn.",
  },
  {
    name: "Pears",
    term: "espalier",
    ask: "prune the espalier pear trees",
    text: "Prune the espalier pear trees in late winter and mulch the roots with composted bark to keep moisture in.",
  },
  {
    name: "Kotari",
    term: "evidentiality",
    ask: "language marks evidentiality with a suffix",
    text: "The Kotari language marks evidentiality with the suffix zhun, showing whether the speaker saw the event.",
  },
  {
    name: "Cello",
    term: "Brahms",
    ask: "cellist rehearsed the Brahms sonata",
    text: "The cellist rehearsed the Brahms sonata in E minor, tuning the C string slightly flat for the dark opening.",
  },
  {
    name: "Train",
    term: "Pellston",
    ask: "train departs from platform nine",
    text: "Train 8817 from Harwick to Pellston departs from platform nine at 06:42 and stops at Dunmere junction.",
  },
];
export const FILE = {
  fileName: "turbine-manual.txt",
  term: "Quorvath",
  ask: "grease the turbine bearings",
  text: "The Quorvath turbine manual says to grease the turbine bearings every four hundred operating hours.",
};
export const PAGE = {
  term: "Snelgrove",
  ask: "lighthouse keeper logbook storm",
  text: "The Snelgrove lighthouse keeper wrote in the logbook that the storm broke the lantern glass at midnight.",
};
export const OTHER = [
  {
    name: "Drone",
    term: "Halcyon",
    text: "The Halcyon drone surveyed the volcano crater; its gyroscope calibration code is QZ-4410.",
  },
  {
    name: "Kiln",
    term: "Oberkassel",
    text: "The Oberkassel kiln fires stoneware at 1280 degrees; the invoice for the firing is paid in advance.",
  },
];
export const MODES = ["vector", "keyword", "hybrid"] as const;

export interface Hit {
  content: string;
  score: number;
  metadata: {
    sourceId: string;
    sourceName: string;
    chunkIndex: number;
    sourceType: string;
    url?: string;
    fileName?: string;
  };
}

/** POST /api/rag/query with `key`; anything but 200 throws with the reply. */
export async function searchWith(c: Client, key: string, body: Record<string, unknown>): Promise<Hit[]> {
  const r = await c.query(key, body);
  if (r.status !== 200) throw new Error(`query ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  return r.body.results;
}
