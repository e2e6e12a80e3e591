/**
 * A copy of `value` with `fn` applied to every string in it: plain objects and arrays are walked deeply, other values
 * (numbers, null, class instances) are kept as they are. For redacting or escaping a whole JSON-like document.
 */
export function mapStrings<T>(value: T, fn: (text: string) => string): T {
  if (typeof value === "string") return fn(value) as T;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn)) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)])) as T;
  }
  return value;
}
