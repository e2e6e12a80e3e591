/**
 * Generated texts around secrets for tests that compare a shortcut with redacting or scanning the whole text: code
 * and config pieces with names that say secret, `:`/`=`, quotes, every kind of white space and line break the
 * patterns care about, values that look like keys, and the provider shapes.
 */

/** A seeded linear congruential generator (numbers in [0, 1)), so a failing text can be found again. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
}

// Pieces of code and config around secrets: names that say secret, `:`/`=`, quotes, every kind of white space and
// line break the patterns care about, values that look like keys, and the provider shapes.
export const PIECES = [
  "password",
  "passwd",
  "secret",
  "token",
  "api_key",
  "apiKey",
  "access_key",
  "credential",
  "aws_secret_access_key",
  "AWS_SECRET_ACCESS_KEY",
  "DEPLOY_TOKEN",
  "export ",
  "=",
  ":",
  "= ",
  " =",
  ": ",
  " ",
  "  ",
  "\t",
  "\n",
  "\n",
  "\n",
  "\r\n",
  "\n\n",
  "\n   ",
  "\t\n",
  "\n\t",
  " \u00a0\n",
  "\u00a0",
  "\u2028",
  '"',
  "'",
  "hunter2hunter2",
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "abcd1234efgh5678",
  "${X}",
  "postgres://admin:S3cr3tP4ss@db",
  "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "AKIA" + "IOSFODNN7EXAMPLE",
  "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  "x",
  "const ",
  ";",
  ",",
  "{",
  "}",
  "#",
  // a `.env` line's comment repeating its value
  " # hunter2hunter2",
];

/** One text of 1 to 60 {@link PIECES}. */
export function text(next: () => number): string {
  let out = "";
  const n = 1 + Math.floor(next() * 60);
  for (let i = 0; i < n; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}
