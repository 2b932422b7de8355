/**
 * A knowledge base's API keys (docs/API.md, Knowledge base keys): list, create, revoke, for
 * its owner. They search the knowledge base through POST /api/kb/{id}/search and /mcp, with
 * the query scope (and tokens); they reach no pipeline (QueryService.admitKey).
 */
import type { AuthService } from "../auth/service";
import { ownedKeyRoutes } from "../keys/routes";
import type { KeyService } from "../keys/service";
import type { KbService } from "./service";

export function kbKeyRoutes(auth: AuthService, kbs: KbService, keys: KeyService) {
  return ownedKeyRoutes(auth, keys, {
    prefix: "/api/kb/:id/keys",
    tag: "Knowledge bases",
    own: (user, id) => kbs.find(user, id),
    summaries: {
      list: "List a knowledge base's keys (prefixes only)",
      create: 'Create a key that searches this knowledge base ("query", and "tokens"); shown only here',
      revoke: "Revoke and delete a knowledge base's key; it stops working at once",
    },
  });
}
