/** A button that copies text and says so. */
import { useState } from "preact/hooks";
import { t } from "../i18n";

/**
 * Copies with the Clipboard API, falling back to a hidden textarea and
 * execCommand where the page is not a secure context (plain http on a LAN address).
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand("copy");
  ta.remove();
  return ok;
}

interface Props {
  text: string;
  label?: string;
  class?: string;
}

/** "Copy" → "Copied" for two seconds; announces the result politely. */
export function CopyButton({ text, label = t("copy.copy"), class: cls = "btn" }: Props) {
  const [state, setState] = useState<"idle" | "done" | "failed">("idle");
  const onClick = async () => {
    setState((await copyText(text)) ? "done" : "failed");
    setTimeout(() => setState("idle"), 2000);
  };
  return (
    <button type="button" class={cls} onClick={onClick} aria-live="polite">
      {state === "done" ? t("copy.done") : state === "failed" ? t("copy.failed") : label}
    </button>
  );
}
