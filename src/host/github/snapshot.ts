import { Readable } from "node:stream";
import { exactSnapshot, type TreeListing } from "../../snapshot/index.js";
import type { Snapshot } from "../../types.js";
import type { Octokit, RepoRef } from "./octokit.js";

/**
 * The snapshot of commit `sha` of `repo`, every file as committed, through the REST API (no clone):
 * `GET /repos/{o}/{r}/tarball/{sha}` (GitHub answers 302 to codeload; fetch follows it), streamed, with the
 * `owner-repo-sha/` folder stripped. GitHub makes its tarball with `git archive`, which applies the commit's
 * `.gitattributes` (export-ignore, export-subst, ident, eol): the archive's root tree id is computed and compared with
 * `treeSha` (the commit's tree, from `GET branches/{b}`), and only when they differ, or `treeSha` is unknown, is
 * `GET git/trees/{sha}?recursive=1` read and each file the tarball lacks or holds otherwise read as a blob
 * (`GET git/blobs/{sha}`, base64); see `exactSnapshot` of src/snapshot/exact.ts. A commit the tarball renders
 * exactly, with its tree id known, costs the one request.
 *
 * @throws the Octokit `RequestError` of any of the requests (404 for an unknown SHA), or the tar reader's errors.
 */
export function loadGitHubSnapshot(octokit: Octokit, repo: RepoRef, sha: string, treeSha?: string): Promise<Snapshot> {
  const where = { owner: repo.owner, repo: repo.name };
  const tarball = octokit
    .request("GET /repos/{owner}/{repo}/tarball/{ref}", {
      ...where,
      ref: sha,
      request: { parseSuccessResponseBody: false },
    })
    .then(({ data }) => {
      const body = data as unknown;
      return body instanceof ArrayBuffer
        ? new Uint8Array(body)
        : Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
    });
  const tree = () =>
    octokit.rest.git.getTree({ ...where, tree_sha: sha, recursive: "1" }).then(({ data }): TreeListing => ({
      truncated: data.truncated,
      entries: data.tree.flatMap((e) =>
        e.path && e.mode && e.type && e.sha
          ? [
              {
                path: e.path,
                mode: e.mode,
                type: e.type,
                sha: e.sha,
                ...(e.size !== undefined ? { size: e.size } : {}),
              },
            ]
          : [],
      ),
    }));
  const blob = async (fileSha: string): Promise<Uint8Array> => {
    const { data } = await octokit.rest.git.getBlob({ ...where, file_sha: fileSha });
    return data.encoding === "base64" ? Buffer.from(data.content, "base64") : Buffer.from(data.content, "utf8");
  };
  return exactSnapshot(
    { tarball, tree, blob, ...(treeSha !== undefined ? { treeSha } : {}) },
    { sha, stripTopFolder: true },
  );
}
