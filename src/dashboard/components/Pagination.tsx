/** Previous / next page links with "Page 2 of 5". */
import { t } from "../i18n";

interface Props {
  page: number;
  totalPages: number;
  total: number;
  /** The link target for a page number. */
  hrefFor: (page: number) => string;
}

/** Hidden when everything fits on one page. */
export function Pagination({ page, totalPages, total, hrefFor }: Props) {
  if (totalPages <= 1) return null;
  return (
    <nav class="pagination" aria-label={t("pages.label")}>
      {page > 1 ? (
        <a class="btn" href={hrefFor(page - 1)} rel="prev">
          {t("pages.previous")}
        </a>
      ) : (
        <span class="btn" aria-disabled="true">
          {t("pages.previous")}
        </span>
      )}
      <span class="muted">{t("pages.where", { page, pages: totalPages, total })}</span>
      {page < totalPages ? (
        <a class="btn" href={hrefFor(page + 1)} rel="next">
          {t("pages.next")}
        </a>
      ) : (
        <span class="btn" aria-disabled="true">
          {t("pages.next")}
        </span>
      )}
    </nav>
  );
}
