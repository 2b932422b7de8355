/**
 * "Download backup" for the Admin screen (docs/API.md, Backup and restore): asks
 * POST /api/admin/backup and saves the archive it streams under the server's file name.
 * Placed on the Admin screen.
 */
import { useState } from "preact/hooks";
import { ApiError, errorFrom } from "../api/client";
import { rich, t } from "../i18n";
import { ErrorNote } from "./ErrorNote";

export function BackupButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);

  const download = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await fetch("/api/admin/backup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
        credentials: "same-origin",
      });
      if (!res.ok) throw await errorFrom(res);
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "ragd-backup.tar";
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, "network", t("backup.noArrival")));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="backup">
      <button type="button" class="btn" onClick={download} disabled={busy} aria-busy={busy}>
        {busy ? t("backup.preparing") : t("backup.download")}
      </button>
      <p class="small">{rich("backup.text", { command: <code>ragd restore --from FILE --data-dir DIR</code> })}</p>
      <ErrorNote error={error} context={t("backup.failed")} />
    </div>
  );
}
