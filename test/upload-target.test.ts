/**
 * Where the dashboard PUTs a file source's bytes, and what its page may connect to: ragd's
 * own signed upload URL goes to the page's origin; an object store's presigned PUT goes to
 * the store, whose origin (and only that) the page's CSP then allows.
 */
import { describe, expect, test } from "bun:test";
import type { ObjectStorage } from "../src/config-storage";
import { uploadTarget } from "../src/dashboard/api/upload";
import { securityHeaders } from "../src/dashboard/routes";
import { presignPut, storeOrigin } from "../src/files/presign";
import { signUploadUrl } from "../src/files/signing";

const STORE: ObjectStorage = {
  bucket: "uploads",
  prefix: "ragd",
  endpoint: "http://127.0.0.1:9000",
  region: "us-east-1",
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
};
const PAGE = "http://localhost:8484/#/pipelines/x";
const ID = "01a208fe-29aa-75d8-9dfd-f94ca0000000";

describe("the dashboard's upload target", () => {
  test("ragd's own upload URL is made same-origin: path and signed query only", () => {
    const own = signUploadUrl(Buffer.alloc(32, 1), "http://127.0.0.1:8484", { sourceId: ID, expires: 1e13, size: 5 });
    const target = uploadTarget(own, PAGE);
    expect(target.startsWith(`/uploads/${ID}?`)).toBe(true);
    expect(target).toContain("sig=");
  });

  test("a presigned PUT to the object store is used as it is, even in a bucket named uploads", () => {
    const url = presignPut(STORE, `ragd/files/${ID}/${ID}`, { contentLength: 5, expiresInS: 900 });
    expect(uploadTarget(url, PAGE)).toBe(new URL(url).href);
    expect(uploadTarget(url, PAGE).startsWith("http://127.0.0.1:9000/uploads/ragd/files/")).toBe(true);
  });
});

describe("the page's content security policy", () => {
  test("on the data directory the page connects to its own origin only", () => {
    expect(securityHeaders(null)["content-security-policy"]).not.toContain("connect-src");
  });

  test("on object storage it may also connect to the store's origin, and to nothing else", () => {
    const csp = securityHeaders(storeOrigin(STORE))["content-security-policy"];
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:9000");
    expect(storeOrigin({ ...STORE, endpoint: null })).toBe("https://uploads.s3.us-east-1.amazonaws.com");
  });
});
