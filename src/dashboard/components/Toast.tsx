/** A short-lived notice in a polite live region ("Pipeline created"). */
import { useRef, useState } from "preact/hooks";

/** State for the one toast of the app: `show` replaces the current message. */
export function useToast() {
  const [message, setMessage] = useState("");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const show = (m: string) => {
    clearTimeout(timer.current);
    setMessage(m);
    timer.current = setTimeout(() => setMessage(""), 4000);
  };
  return { message, show };
}

/** The live region; always in the page so screen readers pick up changes. */
export function Toast({ message }: { message: string }) {
  return (
    <div class="toast-region" role="status" aria-live="polite">
      {message && <div class="toast">{message}</div>}
    </div>
  );
}
