/**
 * The shape of a message catalogue. English (en.ts) is the source of keys: every
 * other catalogue is typed `Catalogue`, so a key it lacks is a type error.
 *
 * A message is a string with `{name}` placeholders, or, when it depends on a count,
 * one string per CLDR plural category (`Intl.PluralRules` picks the category; a
 * language lists only the categories it has, always with `other`).
 */
import type { en } from "./en";

export type PluralCategory = Intl.LDMLPluralRule;
export type Plural = { other: string } & Partial<Record<PluralCategory, string>>;
export type Message = string | Plural;

export type Key = keyof typeof en;

/** Every key of English; a plural message stays a plural message. */
export type Catalogue = { [K in Key]: (typeof en)[K] extends string ? string : Plural };
