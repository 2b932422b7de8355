/** A calm empty state: what is missing and what to do next. */
import type { ComponentChildren } from "preact";
import { t } from "../i18n";

interface Props {
  title: string;
  children?: ComponentChildren;
  action?: ComponentChildren;
}

/** A centred message with an optional call to action. */
export function EmptyState({ title, children, action }: Props) {
  return (
    <div class="empty">
      <div class="empty-mark" aria-hidden="true" />
      <h3>{title}</h3>
      {children && <p class="muted">{children}</p>}
      {action && <div class="empty-action">{action}</div>}
    </div>
  );
}

/** A placeholder while the first answer is on its way. */
export function Loading({ label = t("common.loading") }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}
    </p>
  );
}
