/**
 * Whether a JavaScript/TypeScript guard sits in React's render path, where throwing converts one crash into another
 * that the user sees the same way: an error thrown while a component renders (its body, a class's `render()`, or a
 * hook it calls) unmounts the tree up to the nearest error boundary — with none, React 18 removes the whole root
 * (a blank page), as the `TypeError` it replaces did. Source: the React documentation, "Catching rendering errors
 * with an error boundary" (`Component` reference): an error during rendering is not caught by the component itself.
 *
 * Read from the lines of the file only (no parser): the file is React's when it is `.jsx`/`.tsx` or a line imports
 * or requires `react`/`preact` (`react/…`, `preact/…`); a component is a function named in PascalCase whose body
 * renders JSX (`<Tag`, `<>`) or calls `createElement`; a hook is a function named `use` + a capital letter; a class
 * component's method is `render` whose body renders JSX.
 */
import type { Enclosing } from "./code.js";
import { liveCode } from "./live-code.js";

/** A render-path function: what it is and its name (`UserCard`, `useUser`, `render`). */
export interface RenderPath {
  kind: "component" | "hook" | "render";
  name: string;
}

/** A line importing React: `import React from "react"`, `import { h } from 'preact/hooks'`, `require("react")`. */
const REACT_IMPORT =
  /^\s*(?:import\b.*\bfrom\s+|(?:const|let|var)\b.*\brequire\(\s*)["'](?:react|preact)(?:\/[\w-]+)?["']/;

/** JSX opening a tag or a fragment (`<div`, `<Card.Body`, `<>`) where an expression starts, or `createElement(`. */
const RENDERS = /(?:^|[(\s=>?:&|,{])<(?:[A-Za-z][\w.:-]*|>)|\bcreateElement\s*\(/m;

/**
 * The render-path function the guard is in (see the module comment), or null.
 *
 * @param lines the lines read of the file, by 1-based number
 * @param enc the innermost function around the guard's insertion line (`enclosingDefinition`)
 * @param path the file's repository path (its extension)
 */
export function reactRenderPath(
  lines: ReadonlyMap<number, string>,
  enc: Enclosing | null,
  path: string,
): RenderPath | null {
  if (!enc || enc.kind !== "function") return null;
  if (!/\.[jt]sx$/i.test(path) && ![...lines.values()].some((l) => REACT_IMPORT.test(l))) return null;
  if (/^use[A-Z0-9]/.test(enc.name)) return { kind: "hook", name: enc.name };
  const component = /^[A-Z]/.test(enc.name);
  if (!component && !(enc.name === "render" && enc.instance)) return null;
  if (!RENDERS.test(liveCode(body(lines, enc.line).join("\n"), "typescript"))) return null;
  return { kind: component ? "component" : "render", name: enc.name };
}

/** The function's lines from its definition line `from` to its end (the first line indented as little or less). */
function body(lines: ReadonlyMap<number, string>, from: number): string[] {
  const head = lines.get(from) ?? "";
  const indent = /^\s*/.exec(head)?.[0].length ?? 0;
  const out = [head];
  for (let n = from + 1; lines.has(n) && n < from + 400; n++) {
    const t = lines.get(n) ?? "";
    if (t.trim() !== "" && (/^\s*/.exec(t)?.[0].length ?? 0) <= indent && !/^\s*[)\]]/.test(t)) break;
    out.push(t);
  }
  return out;
}
