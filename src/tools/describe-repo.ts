import { z } from "zod";
import { extractSymbols } from "../grounding/symbols.js";
import type { Snapshot } from "../types.js";
import type { ToolDefinition } from "./types.js";
import { isLikelyEntryPoint, languageOf } from "./languages.js";
import { describeEntry } from "./list-files.js";
import { manifestKind, ownPackages, parseManifest, type OwnPackage } from "./manifests.js";
import { capList, finish, formatBytes, shortSha } from "./output.js";
import { folderSet, isUnder, normalizeRepoPath } from "./paths.js";
import { resolveTextFile } from "./serve.js";
import { splitLines } from "../grounding/lines.js";

const schema = z.object({
  path: z
    .string()
    .max(4096)
    .optional()
    .describe(
      "A folder (lists its files with sizes) or a file (its outline: functions, classes, methods with line numbers). " +
        "Omit for the whole repository.",
    ),
});

/** Folders whose manifests are third-party copies, not the project's own. */
const VENDORED = /(^|\/)(node_modules|vendor|third_party|dist|build|\.git)\//;
const MAX_TOP = 60;
const MAX_FOLDER = 200;
const MAX_OUTLINE = 200;
const MAX_MANIFESTS = 8;
const MAX_DEPS = 40;

function overview(s: Snapshot, own: readonly OwnPackage[]): string {
  const st = s.stats;
  const out: string[] = [
    `Repository at ${shortSha(s.sha)}: ${st.files} paths, ${st.textFiles} text files (${formatBytes(st.textBytes)}).`,
  ];
  const kinds = new Map<string, number>();
  const langs = new Map<string, number>();
  const topCounts = new Map<string, number>();
  for (const p of s.paths) {
    const e = s.entry(p);
    if (e && e.kind !== "text") kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1);
    if (e?.kind === "text") {
      const lang = languageOf(p);
      if (lang !== "Other") langs.set(lang, (langs.get(lang) ?? 0) + 1);
    }
    const slash = p.indexOf("/");
    const top = slash === -1 ? p : `${p.slice(0, slash)}/`;
    topCounts.set(top, (topCounts.get(top) ?? 0) + 1);
  }
  if (kinds.size > 0) out.push(`Not served: ${[...kinds].map(([k, n]) => `${n} ${k.replace("_", " ")}`).join(", ")}.`);
  const top = [...topCounts].map(([name, n]) => (name.endsWith("/") ? `${name} (${n} files)` : describeTop(s, name)));
  out.push("Top level:", ...capList(top, MAX_TOP, "; use list_files to see the rest").map((l) => `  ${l}`));
  const langList = [...langs].sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`);
  if (langList.length > 0) out.push(`Languages (text files): ${langList.join(", ")}`);
  const manifests = s.paths.filter((p) => manifestKind(p) !== null && !VENDORED.test(p) && s.read(p) !== undefined);
  manifests.sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  if (manifests.length > 0) out.push("Manifests:");
  const entries: string[] = [];
  for (const path of manifests.slice(0, MAX_MANIFESTS)) {
    const m = parseManifest(path, s.read(path) ?? "");
    out.push(`  ${path} (${m.kind})`);
    for (const sec of m.sections) out.push(`    ${sec.name}: ${capList(sec.deps, MAX_DEPS, "").join(", ")}`);
    if (m.sections.length === 0) out.push("    no dependencies declared");
    entries.push(...m.entries.map((e) => `${e} (${path})`));
  }
  if (manifests.length > MAX_MANIFESTS)
    out.push(`  … ${manifests.length - MAX_MANIFESTS} more not shown (list_files with glob "**/package.json" etc.)`);
  if (own.length > 0) {
    const named = own.map((p) => `${p.name} (${p.kind}${p.root === "" ? "" : `, ${p.root}/`})`);
    out.push(
      `This repository's own packages (an installed copy in a stack trace is this code): ` +
        `${capList(named, 12, "").join(", ")}`,
    );
  }
  const likely = s.paths.filter((p) => isLikelyEntryPoint(p) && !VENDORED.test(p));
  const allEntries = [...entries, ...likely];
  if (allEntries.length > 0) out.push(`Likely entry points: ${capList(allEntries, 15, "").join(", ")}`);
  return out.join("\n");
}

function describeTop(s: Snapshot, path: string): string {
  const e = s.entry(path);
  return e === undefined || e.kind === "text" ? `${path} (${formatBytes(e?.size ?? 0)})` : describeEntry(e, path);
}

function folderListing(s: Snapshot, folder: string): string {
  const files: string[] = [];
  const sub = new Map<string, number>();
  for (const p of s.paths) {
    if (!isUnder(p, folder) || p === folder) continue;
    const rest = p.slice(folder.length + 1);
    const slash = rest.indexOf("/");
    if (slash === -1) {
      const e = s.entry(p);
      const lines = e?.kind === "text" ? `, ${splitLines(s.read(p) ?? "").length} lines` : "";
      files.push(
        e === undefined || e.kind === "text"
          ? `${rest} (${formatBytes(e?.size ?? 0)}${lines})`
          : describeEntry(e, rest),
      );
    } else {
      const name = `${rest.slice(0, slash)}/`;
      sub.set(name, (sub.get(name) ?? 0) + 1);
    }
  }
  const items = [...[...sub].map(([n, c]) => `${n} (${c} files)`), ...files];
  return [
    `${folder}/ at ${shortSha(s.sha)}: ${sub.size} folder(s), ${files.length} file(s)`,
    ...capList(items, MAX_FOLDER, `; use list_files with glob "${folder}/**"`).map((l) => `  ${l}`),
  ].join("\n");
}

/**
 * `describe_repo({ path? })`: without a path, the layout (top-level entries with file counts, counts by language,
 * manifests with their declared dependencies, likely entry points); with a folder, its files with sizes and
 * subfolders; with a file, its outline (symbols from `extractSymbols` with line numbers).
 */
export const describeRepo: ToolDefinition<z.infer<typeof schema>> = {
  name: "describe_repo",
  description:
    "Get oriented in the repository. Without path: its layout, file counts by " +
    "language, manifests (package.json, requirements.txt, pyproject.toml, go.mod, " +
    "Cargo.toml, pom.xml, Gemfile) with their dependencies, and likely entry points. " +
    "With a folder path: its files with sizes; with a file path: " +
    "its outline (functions, classes, methods with line numbers). " +
    "Use it first, and to see what a file defines before you read it. It shows no code, so it is never a source for " +
    "code_before.",
  schema,
  readsCode: true,
  run(args, ctx) {
    const s = ctx.snapshot;
    const norm = normalizeRepoPath(args.path ?? "");
    if (!norm.ok) return finish(s, { status: "not_found", text: `NOT_FOUND: ${norm.message}` });
    const path = norm.path;
    if (path === "") {
      const own = ownPackages(s.paths, (p) => s.read(p));
      return finish(s, { status: "ok", text: overview(s, own), data: { tool: "describe_repo", ownPackages: own } });
    }
    if (s.entry(path) === undefined && folderSet(s.paths).has(path))
      return finish(s, { status: "ok", text: folderListing(s, path) });
    const file = resolveTextFile(s, path, "describe_repo");
    if (!file.ok) return finish(s, file.result);
    const defs = extractSymbols(file.path, file.content);
    const total = splitLines(file.content).length;
    const head =
      `${file.path} (${languageOf(file.path)}, ${total} lines, ` + `${formatBytes(s.entry(file.path)?.size ?? 0)})`;
    if (defs.length === 0)
      return finish(s, {
        status: "ok",
        text: `${head}: no functions or classes recognised; read it with get_file_contents.`,
      });
    const width = String(total).length;
    const outline = defs.map((d) => {
      const indent = d.container !== undefined ? "    " : "  ";
      const span = d.endLine !== undefined && d.endLine !== d.line ? `-${d.endLine}` : "";
      return (
        `${indent}${`${d.line}${span}`.padStart(width * 2 + 1)} ${d.kind} ` +
        `${d.container !== undefined ? `${d.container}.` : ""}${d.name}`
      );
    });
    return finish(s, {
      status: "ok",
      text: [`${head} outline:`, ...capList(outline, MAX_OUTLINE, "; read the file with get_file_contents")].join("\n"),
    });
  },
};
