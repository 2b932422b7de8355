/** Previous / next page links with "Page 2 of 5". */
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
    <nav class="pagination" aria-label="Pages">
      {page > 1 ? (
        <a class="btn" href={hrefFor(page - 1)} rel="prev">
          ← Previous
        </a>
      ) : (
        <span class="btn" aria-disabled="true">
          ← Previous
        </span>
      )}
      <span class="muted">
        Page {page} of {totalPages} · {total} in all
      </span>
      {page < totalPages ? (
        <a class="btn" href={hrefFor(page + 1)} rel="next">
          Next →
        </a>
      ) : (
        <span class="btn" aria-disabled="true">
          Next →
        </span>
      )}
    </nav>
  );
}
