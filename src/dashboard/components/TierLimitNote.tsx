/** Why a pipeline could not be created (403 tier_limit_reached) and what to do. */
import { rich, t } from "../i18n";
import { NEXT_TIER, TIER_PIPELINES, useApp } from "../lib/session";
import { TIER_NAMES } from "./TierBadge";

/** Explains the limit in the API's words, then the two ways forward. */
export function TierLimitNote({ message }: { message: string }) {
  const { user } = useApp();
  const limit = TIER_PIPELINES[user.tier];
  const tier = t(TIER_NAMES[user.tier]);
  return (
    <div class="note note-warn tier-limit" role="alert">
      <strong>{limit !== null ? t("tierLimit.fullOf", { tier, count: limit }) : t("tierLimit.full", { tier })}</strong>
      <p>{t("tierLimit.said", { message })}</p>
      <p>{t("tierLimit.whatToDo")}</p>
      <ul>
        <li>{rich("tierLimit.delete", { link: <a href="#/pipelines">{t("tierLimit.deleteLink")}</a> })}</li>
        <li>
          {rich("tierLimit.ask", {
            command: <code>{`ragd user set-tier --email ${user.email} --tier ${NEXT_TIER[user.tier]}`}</code>,
          })}
        </li>
      </ul>
    </div>
  );
}
