/**
 * The HTML shell of the dashboard. Asset URLs carry a version derived from their
 * content, so browsers may cache them for good and never run a stale bundle.
 */

// The favicon is inline (a data: URL the CSP allows): no extra request, nothing to serve.
const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E" +
  "%3Crect x='3' y='4' width='26' height='7' rx='3.5' fill='%234f46e5'/%3E" +
  "%3Crect x='3' y='13' width='20' height='7' rx='3.5' fill='%234f46e5' opacity='.7'/%3E" +
  "%3Crect x='3' y='22' width='14' height='7' rx='3.5' fill='%234f46e5' opacity='.45'/%3E%3C/svg%3E";

/** The index page for a given asset version. */
export function indexHtml(version: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>ragd</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="/assets/app.css?v=${version}">
<script type="module" src="/assets/app.js?v=${version}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p style="padding:2rem;font-family:system-ui,sans-serif">The ragd dashboard needs JavaScript.
The API works without it: see <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>`;
}
