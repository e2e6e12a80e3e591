import { languageOfBasename, languageOfExtension } from "../lang/languages.js";

/** The language of a path by its basename/extension, or "Other". */
export function languageOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const named = languageOfBasename(base);
  if (named !== undefined) return named;
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return "Other";
  return languageOfExtension(base.slice(dot + 1)) ?? "Other";
}

/** Basenames that usually start a program; describe_repo lists the paths that have them. */
export function isLikelyEntryPoint(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const depth = path.split("/").length - 1;
  if (/^(__main__|manage|wsgi|asgi)\.py$/.test(base)) return true;
  if (/^main\.(go|rs|py|java|kt|c|cpp|ts|js)$/.test(base)) return depth <= 3;
  if (/^(index|app|server|cli|main)\.(js|mjs|cjs|ts|tsx|jsx)$/.test(base)) return depth <= 2;
  if (/^(app|application|server|run|cli)\.(py|rb)$/.test(base) || base === "config.ru") return depth <= 2;
  if (/^Program\.cs$|Application\.java$/.test(base)) return true;
  return false;
}
