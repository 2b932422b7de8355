/** The ragd wordmark: a small stacked-layers mark and the name. */

/** Inline SVG, so it costs no request and follows the text colour. */
export function Logo({ small }: { small?: boolean }) {
  const size = small ? 22 : 30;
  return (
    <span class={`logo${small ? " logo-small" : ""}`}>
      <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <rect x="3" y="4" width="26" height="7" rx="3.5" fill="var(--accent)" />
        <rect x="3" y="13" width="20" height="7" rx="3.5" fill="var(--accent)" opacity="0.7" />
        <rect x="3" y="22" width="14" height="7" rx="3.5" fill="var(--accent)" opacity="0.45" />
      </svg>
      <span class="logo-text">ragd</span>
    </span>
  );
}
