/** The user's tier as a small pill: Free, Pro, Unlimited. */
import type { Tier } from "../api/types";
import { type Key, t } from "../i18n";

export const TIER_NAMES: Record<Tier, Key> = { free: "tier.free", pro: "tier.pro", unlimited: "tier.unlimited" };

/** A pill with the tier's name; screen readers hear "tier: Free". */
export function TierBadge({ tier }: { tier: Tier }) {
  return (
    <span class={`tier tier-${tier}`}>
      <span class="sr-only">{t("tier.srPrefix")} </span>
      {TIER_NAMES[tier] ? t(TIER_NAMES[tier]) : tier}
    </span>
  );
}
