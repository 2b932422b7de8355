/**
 * The whole HTTP API in one place: every feature is `.use()`d here, so a
 * newcomer sees all of ragd's surface at a glance.
 */
import { Elysia } from "elysia";
import { dashboardRoutes } from "./dashboard/routes";
import { adminRoutes } from "./features/admin/routes";
import { authRoutes } from "./features/auth/routes";
import { ssoRoutes } from "./features/auth/sso-routes";
import { backupRoutes } from "./features/backup/routes";
import { docsRoutes } from "./features/docs/routes";
import { documentRoutes } from "./features/documents/routes";
import { eventRoutes, keyEventRoutes } from "./features/events/routes";
import { healthRoutes } from "./features/health/routes";
import { insightRoutes } from "./features/insight/routes";
import { InsightService } from "./features/insight/service";
import { SourceInspector } from "./features/sources/inspect";
import { sourceInspectRoutes } from "./features/sources/inspect-routes";
import { kbKeyRoutes } from "./features/kb/key-routes";
import { kbRoutes } from "./features/kb/routes";
import { kbSearchRoutes } from "./features/kb/search-routes";
import { keyRoutes } from "./features/keys/routes";
import { mcpCommandRoutes } from "./features/mcp/command-route";
import { mcpRoutes } from "./features/mcp/routes";
import { ocrRoutes } from "./features/ocr/routes";
import { modelRoutes } from "./features/embedding-models/routes";
import { languageRoutes } from "./features/languages/routes";
import { pipelineRoutes } from "./features/pipelines/routes";
import { queryRoutes, sessionQueryRoutes } from "./features/query/routes";
import { evalRoutes } from "./features/evals/routes";
import { sourceRoutes, uploadRoutes } from "./features/sources/routes";
import { transferRoutes } from "./features/transfer/routes";
import { jsonBody } from "./http/body";
import { ClientAddresses } from "./http/client-address";
import { errorHandler } from "./http/errors";
import { hostGuard } from "./http/hosts";
import { observe } from "./http/observe";
import { requestHead } from "./http/request-head";
import type { Services } from "./services";
import { objectStorage } from "./config-storage";
import { storeOrigin } from "./files/presign";

export function buildApp(s: Services) {
  const storage = objectStorage(s.config);
  // Evaluation and insight in one link: one more in the chain below exceeds TypeScript's instantiation depth.
  const quality = new Elysia()
    .use(evalRoutes(s.auth, s.pipelines, s.evals))
    .use(insightRoutes(s.auth, new InsightService(s.db, s.pipelines, s.queries.log, s.scheduler.clock)));
  return new Elysia()
    .use(observe(s.log, s.metrics))
    .use(errorHandler(s.log, s.config.dataDir))
    .use(hostGuard(s.config))
    .use(requestHead())
    .use(jsonBody(s.config.maxJsonBytes))
    .use(docsRoutes())
    .use(dashboardRoutes(storage ? storeOrigin(storage) : null))
    .use(healthRoutes(s.db, s.lance, s.config, s.metrics))
    .use(authRoutes(s.auth, new ClientAddresses(s.config.trustedProxies)))
    .use(ssoRoutes({ auth: s.auth, sso: s.sso, config: s.config, baseUrl: () => s.baseUrl.value, log: s.log }))
    .use(modelRoutes(s.auth, s.config))
    .use(languageRoutes(s.auth))
    .use(ocrRoutes(s.auth, s.config))
    .use(transferRoutes(s.transfers))
    .use(pipelineRoutes(s.auth, s.pipelines))
    .use(sourceRoutes(s.auth, s.pipelines, s.sources, s.evals))
    .use(sourceInspectRoutes(s.auth, s.pipelines, new SourceInspector(s.db, s.vectorStore, s.mcp.reader)))
    .use(uploadRoutes(s.sources))
    .use(eventRoutes(s.auth, s.pipelines, s.events, s.webhooks))
    .use(keyEventRoutes(s.keys, s.events))
    .use(keyRoutes(s.auth, s.pipelines, s.keys))
    .use(queryRoutes(s.queries))
    .use(sessionQueryRoutes(s.auth, s.pipelines, s.queries))
    .use(quality)
    .use(documentRoutes(s.documents, s.config.maxUploadMb))
    .use(mcpRoutes(s.mcp))
    .use(mcpCommandRoutes(s.auth))
    .use(kbRoutes(s.auth, s.kbs))
    .use(kbKeyRoutes(s.auth, s.kbs, s.keys))
    .use(kbSearchRoutes(s.auth, s.kbs, s.queries))
    .use(adminRoutes(s.auth, s.admin))
    .use(backupRoutes(s.auth, s.backups));
}

export type App = ReturnType<typeof buildApp>;
