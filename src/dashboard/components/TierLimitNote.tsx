/** Why a pipeline could not be created (403 tier_limit_reached) and what to do. */
import { NEXT_TIER, TIER_PIPELINES, useApp } from "../lib/session";

/** Explains the limit in the API's words, then the two ways forward. */
export function TierLimitNote({ message }: { message: string }) {
  const { user } = useApp();
  const limit = TIER_PIPELINES[user.tier];
  return (
    <div class="note note-warn tier-limit" role="alert">
      <strong>
        Your {user.tier} tier is full{limit !== null ? `: it allows ${limit} pipeline${limit === 1 ? "" : "s"}` : ""}.
      </strong>
      <p>ragd said: “{message}”.</p>
      <p>What you can do:</p>
      <ul>
        <li>
          Delete a pipeline you no longer need on the <a href="#/pipelines">pipeline list</a>, then create this one.
        </li>
        <li>
          Ask the administrator of this server for a higher tier. They run{" "}
          <code>
            ragd user set-tier --email {user.email} --tier {NEXT_TIER[user.tier]}
          </code>
          .
        </li>
      </ul>
    </div>
  );
}
