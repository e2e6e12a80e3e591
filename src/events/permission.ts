import type { GroundfixConfig } from "../config/schema.js";

/** GitHub's repository roles from least to most (docs: "Repository roles for an organization"). */
export const PERMISSION_ORDER = ["none", "read", "triage", "write", "maintain", "admin"] as const;
/** One of {@link PERMISSION_ORDER}: `none` … `admin`. */
export type PermissionLevel = (typeof PERMISSION_ORDER)[number];

/** The part of an Octokit this module calls. */
export interface PermissionOctokit {
  rest: {
    repos: {
      getCollaboratorPermissionLevel(p: { owner: string; repo: string; username: string }): Promise<{
        data: { permission: string; role_name?: string | null };
      }>;
    };
  };
}

/** The sender of a webhook (`payload.sender`). */
export interface Sender {
  login: string;
  type: string;
}

/**
 * The sender's level from `GET /repos/{o}/{r}/collaborators/{username}/permission`. Its `permission` field only
 * says admin/write/read/none (maintain reads as write, triage as read), so `role_name` wins when it names one of
 * the five built-in roles; a custom role falls back to `permission`. A 404 (not a collaborator) is `none`.
 */
export async function senderPermission(
  octokit: PermissionOctokit,
  repo: { owner: string; name: string },
  username: string,
): Promise<PermissionLevel> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: repo.owner,
      repo: repo.name,
      username,
    });
    const known = (value: unknown): value is PermissionLevel => PERMISSION_ORDER.includes(value as PermissionLevel);
    if (known(data.role_name)) return data.role_name;
    return known(data.permission) ? data.permission : "none";
  } catch (error) {
    if ((error as { status?: unknown } | null)?.status === 404) return "none";
    throw error;
  }
}

/** True when `level` reaches `required` in {@link PERMISSION_ORDER}. */
export function reaches(level: PermissionLevel, required: PermissionLevel): boolean {
  return PERMISSION_ORDER.indexOf(level) >= PERMISSION_ORDER.indexOf(required);
}

/**
 * May `sender` trigger a run or a command here? Bots (`sender.type === "Bot"`) only when their exact login is in
 * `allowed_bots` (never by a `[bot]` suffix or a name pattern; no permission lookup for them). Anyone else needs
 * `trigger_permission` on the repository.
 *
 * @returns `{ allowed: true }` or `{ allowed: false, reason }` (one line, for the log or a command reply)
 */
export async function mayTrigger(
  octokit: PermissionOctokit,
  repo: { owner: string; name: string },
  sender: Sender,
  config: Pick<GroundfixConfig, "trigger_permission" | "allowed_bots">,
): Promise<{ allowed: true } | { allowed: false; reason: string }> {
  if (sender.type === "Bot") {
    return config.allowed_bots.includes(sender.login)
      ? { allowed: true }
      : { allowed: false, reason: `bot ${sender.login} is not listed in allowed_bots` };
  }
  const level = await senderPermission(octokit, repo, sender.login);
  return reaches(level, config.trigger_permission)
    ? { allowed: true }
    : {
        allowed: false,
        reason: `@${sender.login} has ${level} access; trigger_permission is ${config.trigger_permission}`,
      };
}
