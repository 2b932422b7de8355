/** What a document says of itself besides its bytes: read by the kind detector and the zip format reader. */
export interface Hints {
  contentType?: string;
  fileName?: string;
  url?: string;
}
