import { Readable } from "node:stream";
import { cachedSnapshot, snapshotFromTar } from "../../snapshot/index.js";
import type { FilePatch, Snapshot } from "../../types.js";
import type { Host } from "../types.js";
import { commitFiles, rememberTree, type CommitInput, type CommitOutcome } from "./commit.js";
import { compareCommits, type Comparison } from "./compare.js";
import type { Octokit, RepoRef } from "./octokit.js";

const FULL_SHA = /^[0-9a-f]{40}$/i;

/** The GitHub host: the {@link Host} interface over the REST API of one repository, plus what only GitHub has. */
export interface GitHubHost extends Host {
  /** The repository's default branch (`GET /repos/{o}/{r}`, asked once per host). */
  defaultBranch(): Promise<string>;
  /** Like `commitFiles`, also telling whether this call created the branch (so a later failure can delete it). */
  commit(input: CommitInput): Promise<CommitOutcome>;
  /** The compare answer with its merge base; `diff` returns its patches. Cached per (base, head) in the host. */
  compare(baseSha: string, headSha: string): Promise<Comparison>;
}

/**
 * A {@link Host} backed by GitHub's REST API for `repo`, with no clone:
 * - `resolveBase(ref?)`: without `ref`, the default branch (`GET /repos/{o}/{r}`) then `GET branches/{branch}`;
 *   a branch name costs that one call; a full 40-hex SHA is returned as is (no call).
 * - `loadSnapshot(sha)`: ONE `GET /repos/{o}/{r}/tarball/{sha}` (GitHub answers 302 to codeload; fetch follows it),
 *   streamed into `snapshotFromTar` with the `owner-repo-sha/` folder stripped, reused process-wide under the key
 *   `owner/repo@sha`.
 * - `commitFiles`: Git Data API, see {@link commitFiles}.
 * - `diff(base, head)`: `GET compare/{base}...{head}`, see {@link compareCommits}.
 */
export function createGitHubHost(octokit: Octokit, repo: RepoRef): GitHubHost {
  let defaultBranch: Promise<string> | undefined;
  const comparisons = new Map<string, Promise<Comparison>>();

  const host: GitHubHost = {
    defaultBranch() {
      defaultBranch ??= octokit.rest.repos
        .get({ owner: repo.owner, repo: repo.name })
        .then(({ data }) => data.default_branch);
      defaultBranch.catch(() => (defaultBranch = undefined));
      return defaultBranch;
    },

    async resolveBase(ref?: string) {
      if (ref && FULL_SHA.test(ref)) return { sha: ref.toLowerCase(), ref };
      const branch = ref ?? (await host.defaultBranch());
      const { data } = await octokit.rest.repos.getBranch({ owner: repo.owner, repo: repo.name, branch });
      rememberTree(repo, data.commit.sha, data.commit.commit.tree.sha);
      return { sha: data.commit.sha, ref: branch };
    },

    loadSnapshot(sha: string): Promise<Snapshot> {
      return cachedSnapshot(`${repo.owner}/${repo.name}@${sha}`, async () => {
        const response = await octokit.request("GET /repos/{owner}/{repo}/tarball/{ref}", {
          owner: repo.owner,
          repo: repo.name,
          ref: sha,
          request: { parseSuccessResponseBody: false },
        });
        const body = response.data as unknown;
        const source =
          body instanceof ArrayBuffer
            ? new Uint8Array(body)
            : Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
        return snapshotFromTar(source, { sha, stripTopFolder: true });
      });
    },

    commit(input) {
      return commitFiles(octokit, repo, input);
    },

    async commitFiles(input) {
      // A held branch (someone else's commits, no force) is left as is: nothing written, like a reused one.
      const { headSha, branch, reused, held } = await commitFiles(octokit, repo, input);
      return { headSha, branch, reused: reused || held !== undefined };
    },

    compare(baseSha: string, headSha: string) {
      const key = `${baseSha}...${headSha}`;
      let pending = comparisons.get(key);
      if (!pending) {
        pending = compareCommits(octokit, repo, baseSha, headSha, async (mergeBase, head) => ({
          base: await host.loadSnapshot(mergeBase),
          head: await host.loadSnapshot(head),
        }));
        comparisons.set(key, pending);
        pending.then(
          // Head descends from its merge base, so comparing from the merge base gives the same answer.
          (result) => {
            if (!comparisons.has(`${result.mergeBase}...${headSha}`)) comparisons.set(`${result.mergeBase}...${headSha}`, pending!);
          },
          () => comparisons.delete(key),
        );
      }
      return pending;
    },

    async diff(baseSha: string, headSha: string): Promise<FilePatch[]> {
      return (await host.compare(baseSha, headSha)).patches;
    },
  };
  return host;
}
