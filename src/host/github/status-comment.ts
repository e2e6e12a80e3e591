import { capText, GITHUB_BODY_LIMIT } from "./markdown.js";
import { httpStatus, type Octokit } from "./octokit.js";
import { STATUS_MARKER } from "./render.js";

/** Comment ids found per issue (`owner/repo#N`), so later stages of a run edit without listing again. */
const known = new Map<string, number>();

/** Where {@link upsertStatusComment} writes. */
export interface StatusCommentTarget {
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
}

/**
 * Keep ONE groundfix status comment per issue: edit the comment that carries {@link STATUS_MARKER}, else create it.
 * The comment is found among the issue's comments (`GET issues/{n}/comments`, paginated) by the marker AND a Bot
 * author (a human quoting the marker is never edited), then remembered in this process, so each further stage costs
 * one `PATCH issues/comments/{id}` (a 404 there, for a deleted comment, falls back to a fresh search).
 * The marker is prepended when `body` lacks it; the body is capped at 65,536 characters.
 *
 * @returns the comment's id and html_url. @throws the Octokit `RequestError` of a failed create/update.
 */
export async function upsertStatusComment(octokit: Octokit, p: StatusCommentTarget): Promise<{ id: number; html_url: string }> {
  const body = capText(p.body.includes(STATUS_MARKER) ? p.body : `${STATUS_MARKER}\n${p.body}`, GITHUB_BODY_LIMIT);
  const key = `${p.owner}/${p.repo}#${p.issueNumber}`;
  const cached = known.get(key);
  if (cached !== undefined) {
    try {
      const { data } = await octokit.rest.issues.updateComment({ owner: p.owner, repo: p.repo, comment_id: cached, body });
      return { id: data.id, html_url: data.html_url };
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
      known.delete(key);
    }
  }
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: p.owner,
    repo: p.repo,
    issue_number: p.issueNumber,
    per_page: 100,
  });
  const mine = comments.find((c) => c.user?.type === "Bot" && (c.body ?? "").includes(STATUS_MARKER));
  const { data } = mine
    ? await octokit.rest.issues.updateComment({ owner: p.owner, repo: p.repo, comment_id: mine.id, body })
    : await octokit.rest.issues.createComment({ owner: p.owner, repo: p.repo, issue_number: p.issueNumber, body });
  if (known.size >= 5000) known.delete(known.keys().next().value!);
  known.set(key, data.id);
  return { id: data.id, html_url: data.html_url };
}

/** Forget the remembered comment ids (tests; or after an installation is removed). */
export function forgetStatusComments(): void {
  known.clear();
}
