import type { Octokit } from "./octokit.js";
import type { BotLogin } from "./status-comment.js";

/** The part of a Probot instance {@link createBotLogin} uses: the app-JWT octokit and a logger. */
export interface AppAuth {
  auth(): Promise<Pick<Octokit, "rest">>;
  log: { warn(obj: object, msg?: string): void };
}

/**
 * The app's own bot login, `<slug>[bot]`, for one process: `get` asks `GET /app` (authenticated as the app, not an
 * installation) at most once, and not at all once `learn` was told the author of a comment the app created. A
 * failed lookup is logged and not cached (undefined now, asked again next time), so no status comment is edited
 * unless its author is proven to be this app.
 */
export function createBotLogin(app: AppAuth): BotLogin {
  let login: Promise<string | undefined> | undefined;
  return {
    get() {
      login ??= app
        .auth()
        .then((octokit) => octokit.rest.apps.getAuthenticated())
        .then(({ data }) => (data?.slug ? `${data.slug}[bot]` : undefined))
        .catch((error: unknown) => {
          app.log.warn({ err: error }, "groundfix: could not read the app's slug (GET /app)");
          login = undefined;
          return undefined;
        });
      return login;
    },
    learn(known) {
      login = Promise.resolve(known);
    },
  };
}
