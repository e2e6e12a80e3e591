/**
 * Extensions GitHub renders instead of showing source (markup and SVG). Line anchors on their blob pages only work in
 * the source view, which `?plain=1` selects (GitHub Docs, "Getting permanent links to files": "To link to lines of a
 * Markdown file, add ?plain=1 to the URL").
 */
const RENDERED =
  /\.(md|markdown|mdown|mkdn?|mdx|rst|adoc|asciidoc|asc|org|textile|rdoc|creole|mediawiki|wiki|pod|svg)$/i;

/**
 * The web address of the GitHub the app talks to: `https://github.com`, or for GitHub Enterprise Server the host that
 * Probot also reads (`GHE_HOST=host[:port]`, `GHE_PROTOCOL=http|https`, default https; Probot's API base is then
 * `<this>/api/v3`). A trailing slash of `GHE_HOST` is dropped.
 */
export function githubWebUrl(env: NodeJS.ProcessEnv = process.env): string {
  const host = env.GHE_HOST?.trim().replace(/\/+$/, "");
  if (!host) return "https://github.com";
  return `${env.GHE_PROTOCOL?.trim().toLowerCase() === "http" ? "http" : "https"}://${host}`;
}

/**
 * A permalink to a file, or to lines of it, at one commit: `WEB/OWNER/REPO/blob/SHA/PATH#L12-L14`, where `WEB` is
 * `web` (default {@link githubWebUrl}: `https://github.com` or the Enterprise Server host); `#L12` for one line; no
 * anchor without `startLine`; an `endLine` before `startLine` is ignored. Each path segment is percent-encoded
 * (`encodeURIComponent`), so spaces,
 * `#` and `?` in file names survive. Rendered files (Markdown, reStructuredText, AsciiDoc, SVG…) get `?plain=1`
 * before a line anchor so GitHub shows the numbered source. `sha` should be a full commit SHA so the link never moves.
 */
export function permalink(p: {
  owner: string;
  repo: string;
  sha: string;
  path: string;
  startLine?: number;
  endLine?: number;
  web?: string;
}): string {
  const path = p.path.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/");
  const base = `${p.web ?? githubWebUrl()}/${p.owner}/${p.repo}/blob/${p.sha}/${path}`;
  if (p.startLine === undefined || p.startLine < 1) return base;
  const plain = RENDERED.test(p.path) ? "?plain=1" : "";
  const anchor =
    p.endLine !== undefined && p.endLine > p.startLine ? `#L${p.startLine}-L${p.endLine}` : `#L${p.startLine}`;
  return base + plain + anchor;
}
