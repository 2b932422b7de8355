/** Short texts in the languages of issue 37, and the words that must find them (test/languages*.test.ts). */

export const TEXTS = {
  zh: "北京是中国的首都，长城是世界上最长的城墙。",
  ja: "東京は日本の首都です。富士山は日本で一番高い山です。",
  ko: "서울은 한강이 흐르는 도시를 대표한다.",
  th: "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย",
  de: "Das Krankenversicherungsgesetz regelt, wer in den Häusern der Pflege versichert ist.",
  ru: "Москва является столицей России и крупнейшим городом страны.",
  en: "The capital of France is Paris, a city on the river Seine.",
};

/** A second text in a language, sharing no word with the first's queries. */
export const OTHER = {
  ja: "京都には古い寺がたくさんあります。",
  de: "Der Zug nach Berlin fährt jeden Morgen um sieben Uhr ab.",
  ru: "Река Волга течёт через всю европейскую часть страны.",
};

/** Each query and the text it must find first. */
export const FINDS: [string, keyof typeof TEXTS][] = [
  ["北京", "zh"],
  ["长城", "zh"],
  ["富士山", "ja"],
  ["日本の首都", "ja"],
  ["한강", "ko"],
  ["เมืองหลวง", "th"],
  ["Krankenversicherung", "de"],
  ["Haus", "de"],
  ["столицы", "ru"],
  ["capitals", "en"],
];

/** A page translated in part: a Finnish paragraph between two English ones (test/passages.test.ts). */
export const IN_PART = {
  english1:
    "Most printers can print directly onto an envelope. This is useful if you have a lot of letters to send, " +
    "and it saves you the time of writing every address by hand.",
  finnish:
    "Kirjekuorien tulostaminen onnistuu useimmilla tulostimilla suoraan, kunhan paperikoko on asetettu oikein " +
    "ennen tulostamista ja kirjekuori syötetään tulostimeen oikein päin.",
  english2:
    "There are two things you need to check when trying to print onto an envelope. The first is that your " +
    "printer knows what size the envelope is, and the second is which way round it goes in the tray.",
};
