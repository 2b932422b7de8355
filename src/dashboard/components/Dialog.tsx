/**
 * A modal built on the native <dialog>: the browser traps focus, closes it on
 * Escape and returns focus to where it was, which is what keyboard users expect.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

interface Props {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  /** Buttons along the bottom edge. */
  actions?: ComponentChildren;
  tone?: "danger";
}

/** Opens as a modal when mounted; unmount it to close. */
export function Dialog({ title, onClose, children, actions, tone }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const before = useRef<Element | null>(null);
  useEffect(() => {
    before.current = document.activeElement;
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      if (before.current instanceof HTMLElement) before.current.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={`dialog${tone ? ` dialog-${tone}` : ""}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId} class="dialog-title">
        {title}
      </h2>
      <div class="dialog-body">{children}</div>
      {actions && <div class="dialog-actions">{actions}</div>}
    </dialog>
  );
}
