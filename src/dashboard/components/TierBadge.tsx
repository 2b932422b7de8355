/** The user's tier as a small pill: Free, Pro, Unlimited; or Admin for an administrator. */
import type { Tier, User } from "../api/types";
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

/**
 * The header's pill: "Admin" for an administrator (who has no pipeline limit, so the
 * tier says nothing about them), the tier for everyone else.
 */
export function AccountBadge({ user }: { user: Pick<User, "tier" | "isAdmin"> }) {
  if (!user.isAdmin) return <TierBadge tier={user.tier} />;
  return (
    <span class="tier tier-admin" data-testid="admin-badge">
      <span class="sr-only">{t("tier.srRole")} </span>
      {t("shell.adminBadge")}
    </span>
  );
}
