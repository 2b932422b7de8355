/**
 * App-wide state passed down with context: the signed-in user and a way to show
 * a short notice ("Pipeline created") in the shared live region.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { User } from "../api/types";

export interface AppState {
  user: User;
  notify: (message: string) => void;
  signOut: () => Promise<void>;
  /** Replaces the signed-in user after a change the server answered with (a new password). */
  setUser: (user: User) => void;
}

export const AppContext = createContext<AppState | null>(null);

/** The app state; only valid below the signed-in shell. */
export function useApp(): AppState {
  const s = useContext(AppContext);
  if (!s) throw new Error("useApp outside the signed-in shell");
  return s;
}

/** What a tier allows, in the words of docs/API.md (free 1, pro 25, unlimited none). */
export const TIER_PIPELINES: Record<User["tier"], number | null> = { free: 1, pro: 25, unlimited: null };

/** How many pipelines the user may have: null for no limit (administrators have none, whatever their tier). */
export const pipelineLimit = (user: User): number | null => (user.isAdmin ? null : TIER_PIPELINES[user.tier]);

/** The tier to ask an administrator for. */
export const NEXT_TIER: Record<User["tier"], User["tier"]> = { free: "pro", pro: "unlimited", unlimited: "unlimited" };
