/** The language detector with its static `extrasmall` data; eld.ts loads this file on first use. */
export { eld } from "eld/extrasmall";
