import { LRUCache } from "lru-cache";
import { capText, GITHUB_BODY_LIMIT } from "./markdown.js";
import { httpStatus, NO_RETRY, RETRY_ONCE, type Octokit } from "./octokit.js";
import { STATUS_MARKER } from "./render.js";

/** The status comment's id per issue (`owner/repo#N`), so later stages edit without listing the comments again. */
export type StatusCommentIds = LRUCache<string, number>;

/** An empty {@link StatusCommentIds} (at most 5,000 issues, least recently used forgotten first): one per app. */
export function createStatusCommentIds(): StatusCommentIds {
  return new LRUCache({ max: 5000 });
}

/** Where {@link upsertStatusComment} writes. */
export interface StatusCommentTarget {
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
}

/**
 * The app's own login (`<app slug>[bot]`), looked up only when it is needed: `get` when the issue holds a comment
 * with {@link STATUS_MARKER} by a bot (which may be this app's), `learn` with the author of a comment this app just
 * created (that author is the app itself), so a later `get` needs no lookup. `app-login.ts` makes one per process.
 */
export interface BotLogin {
  /** The login, or undefined when it cannot be read now. */
  get(): Promise<string | undefined>;
  learn?(login: string): void;
}

/** Who writes the status comment, and where its id is remembered. */
export interface StatusCommentOptions {
  /**
   * The app's own login (`<app slug>[bot]`) or its lookup: only a comment by this author is ever edited. Without it,
   * no existing comment is trusted and a new one is created (a Bot author alone proves nothing: any app may quote
   * the marker).
   */
  botLogin?: string | BotLogin;
  /** Where found comment ids are remembered; without it every write lists the comments first. */
  commentIds?: StatusCommentIds;
}

/**
 * Keep ONE groundfix status comment per issue: edit the comment that carries {@link STATUS_MARKER}, else create it.
 * The comment is found among the issue's comments (`GET issues/{n}/comments`, paginated) by the marker AND the
 * app's own login `options.botLogin` (a human or another app quoting the marker is never edited; the login is looked
 * up only when a bot's comment carries the marker, so the first run on an issue needs no `GET /app`), then remembered
 * in
 * `options.commentIds`, so each further stage costs one `PATCH issues/comments/{id}` (a 404 there, for a deleted
 * comment, falls back to a fresh search). Each call is retried once on 5xx/429 by the retry plugin (`RETRY_ONCE`); a
 * create is retried only after listing the comments again, because GitHub may have written a comment it answered 5xx
 * for (see {@link createOnce}), so a failed create never posts the status twice.
 * The marker is prepended when `body` lacks it; the body is capped at 65,536 characters.
 *
 * @returns the comment's id and html_url. @throws the Octokit `RequestError` of a failed create/update.
 */
export async function upsertStatusComment(
  octokit: Octokit,
  p: StatusCommentTarget,
  options: StatusCommentOptions = {},
): Promise<{ id: number; html_url: string }> {
  const body = capText(p.body.includes(STATUS_MARKER) ? p.body : `${STATUS_MARKER}\n${p.body}`, GITHUB_BODY_LIMIT);
  const key = `${p.owner}/${p.repo}#${p.issueNumber}`;
  const known = options.commentIds;
  const cached = known?.get(key);
  if (cached !== undefined) {
    try {
      const { data } = await octokit.rest.issues.updateComment({
        owner: p.owner,
        repo: p.repo,
        comment_id: cached,
        body,
        request: RETRY_ONCE,
      });
      return { id: data.id, html_url: data.html_url };
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
      known?.delete(key);
    }
  }
  const who = loginSource(options.botLogin);
  const comments = await listComments(octokit, p);
  const mine = who ? await ownStatusComment(comments, who) : undefined;
  const { data } = mine
    ? await octokit.rest.issues.updateComment({
        owner: p.owner,
        repo: p.repo,
        comment_id: mine.id,
        body,
        request: RETRY_ONCE,
      })
    : await createOnce(octokit, p, body, who);
  if (!mine && data.user?.login) who?.learn(data.user.login);
  known?.set(key, data.id);
  return { id: data.id, html_url: data.html_url };
}

/** Every comment of the issue (`GET issues/{n}/comments`, paginated), each page retried once on 5xx/429. */
function listComments(octokit: Octokit, p: StatusCommentTarget) {
  const params = { owner: p.owner, repo: p.repo, issue_number: p.issueNumber, per_page: 100, request: RETRY_ONCE };
  return octokit.paginate(octokit.rest.issues.listComments, params);
}

/**
 * `POST issues/{n}/comments` (never retried blindly); on a 5xx/429, list the issue's comments once more and edit the
 * app's marker comment when the failed create did land (a 502 from GitHub's front end does not mean nothing was
 * written), else create once more. When the login cannot be read no comment can be proven the app's own, so the
 * create is simply repeated once.
 * @throws the `RequestError` of the last call.
 */
async function createOnce(
  octokit: Octokit,
  p: StatusCommentTarget,
  body: string,
  who: LoginSource | undefined,
): Promise<{ data: { id: number; html_url: string; user?: { login: string } | null } }> {
  const create = () =>
    octokit.rest.issues.createComment({
      owner: p.owner,
      repo: p.repo,
      issue_number: p.issueNumber,
      body,
      request: NO_RETRY,
    });
  try {
    return await create();
  } catch (error) {
    const status = httpStatus(error);
    if (status === undefined || (status < 500 && status !== 429)) throw error;
  }
  const landed = who ? await ownStatusComment(await listComments(octokit, p), who) : undefined;
  if (landed)
    return octokit.rest.issues.updateComment({
      owner: p.owner,
      repo: p.repo,
      comment_id: landed.id,
      body,
      request: RETRY_ONCE,
    });
  return create();
}

/**
 * {@link StatusCommentOptions.botLogin} as one shape: `get` answers the lower-cased login; `learn` keeps one.
 * Undefined without a `botLogin`: then no comment can be proven the app's own.
 */
interface LoginSource {
  get(): Promise<string | undefined>;
  learn(login: string): void;
}

function loginSource(botLogin: string | BotLogin | undefined): LoginSource | undefined {
  if (botLogin === undefined) return undefined;
  if (typeof botLogin === "string") return { get: async () => botLogin.toLowerCase(), learn() {} };
  return {
    get: async () => (await botLogin.get())?.toLowerCase(),
    learn(login) {
      if (BOT_LOGIN.test(login)) botLogin.learn?.(login);
    },
  };
}

/** A GitHub App's login: `<slug>[bot]`; no user account can have one. */
const BOT_LOGIN = /\[bot\]$/i;

/**
 * The comment carrying {@link STATUS_MARKER} written by the app's own login (none when it cannot be read). The login
 * is asked for only when a bot wrote such a comment: a human's comment is never the app's, so it costs no lookup.
 */
async function ownStatusComment<C extends { user?: { login: string } | null; body?: string | null }>(
  comments: C[],
  who: LoginSource,
): Promise<C | undefined> {
  const candidates = comments.filter(
    (c) => BOT_LOGIN.test(c.user?.login ?? "") && (c.body ?? "").includes(STATUS_MARKER),
  );
  if (candidates.length === 0) return undefined;
  const login = await who.get();
  return login ? candidates.find((c) => c.user!.login.toLowerCase() === login) : undefined;
}
