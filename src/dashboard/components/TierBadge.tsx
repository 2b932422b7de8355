/** The user's tier as a small pill: Free, Pro, Unlimited. */
import type { Tier } from "../api/types";

const NAMES: Record<Tier, string> = { free: "Free", pro: "Pro", unlimited: "Unlimited" };

/** A pill with the tier's name; screen readers hear "tier: Free". */
export function TierBadge({ tier }: { tier: Tier }) {
  return (
    <span class={`tier tier-${tier}`}>
      <span class="sr-only">tier: </span>
      {NAMES[tier] ?? tier}
    </span>
  );
}
