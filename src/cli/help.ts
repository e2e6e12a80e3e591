/** `groundfix --help`. */
export const MAIN_HELP =
  "groundfix — grounded fixes: every edit anchored on text that really is in the file at a pinned commit\n\n" +
  `Usage:
  groundfix fix [--repo <dir>] (--issue <file|-> | --issue-text <text>) [options]
  groundfix review [--repo <dir>] --base <rev> --head <rev> [--direct] [--json] [--exit-code]
  groundfix serve [--role all|web|worker]  run the GitHub App (webhooks and jobs; --role web: webhooks only)
  groundfix worker                         run the App's jobs from the Redis queue (GROUNDFIX_REDIS_URL)

Run "groundfix <command> --help" (or "groundfix help <command>") for the options of a command;
"groundfix --version" prints the version.
Exit codes: 0 the run completed (whatever its outcome), 1 internal error (or, with review --exit-code,
a failing review), 2 bad input.
`;

/** `groundfix fix --help`. */
export const FIX_HELP = `Usage: groundfix fix [--repo <dir>] (--issue <file|-> | --issue-text <text>) [options]

Investigate a problem in a local git checkout at one pinned commit. When the fix is grounded and confident
(outcome pr_ready), run the review rules on its edits and, when they pass, commit it on a new branch
groundfix/<slug> whose only parent is the base (git plumbing: your working tree, index and current branch are
never touched).

Options:
  --repo <dir>         the git checkout (default: the current directory)
  --ref <rev>          the commit to pin (default: HEAD)
  --issue <file|->     the problem text from a file, or "-" for stdin; its first line is the title
  --issue-text <text>  the problem text given inline
  --title <t>          the title (default: the first line of the issue)
  --model <spec>       heuristic (default; no network) | replay:<file> | openai:<model> |
                       openai-chat:<model> (Chat Completions) | anthropic:<model> |
                       openai-compatible:<model> (needs GROUNDFIX_OPENAI_BASE_URL);
                       default from GROUNDFIX_MODEL, else heuristic
  --force              replace an existing groundfix/<slug> branch that holds anything but this exact
                       commit (default: leave it untouched and say so; a branch already holding this
                       commit is reused). Commits not made by groundfix that it drops are named in a
                       warning and stay in the reflog (git reflog groundfix/<slug>)
  --trace <file>       write the full trace (every model turn, tool call, tool result, gate decision) as JSON
  --record <file>      write the model's turns as a replay transcript (use with --model replay:<file>)
  --json               print one JSON document instead of the readable report
  -h, --help           this help

Progress goes to stderr when it is a terminal; notes and warnings always go to stderr (and to "notes" and
"warnings" with --json). Configuration: .github/groundfix.yml at the pinned commit (its model: key is for the
GitHub App; the CLI takes the model from --model or GROUNDFIX_MODEL).
`;

/** `groundfix review --help`. */
export const REVIEW_HELP = `Usage: groundfix review [--repo <dir>] --base <rev> --head <rev> [--direct] [--json]
                        [--exit-code]

Run the groundfix/review rules on the changes of --head since it forked from --base, in a local checkout:
the diff from their merge-base to --head, like "git diff base...head" and a GitHub pull request (the same
rules as the check run on the app's pull requests; without a run record, the evidence rule has nothing to
match). The config is .github/groundfix.yml of the --base commit.

Options:
  --repo <dir>   the git checkout (default: the current directory)
  --base <rev>   the base commit or branch (e.g. main)
  --head <rev>   the head commit or branch
  --direct       compare --base and --head themselves ("git diff base head"): a commit --base gained
                 after --head forked from it then reads as a removal
  --json         print one JSON document: base_sha (where the diff starts), given_base_sha (--base),
                 head_sha, compared ("merge-base" or "direct"), conclusion, findings, rules_checked
  --exit-code    exit with 1 when the conclusion is failure (like git diff --exit-code); without it the
                 exit code is 0 whenever the review ran
  -h, --help     this help
`;

/** `groundfix serve --help`. */
export const SERVE_HELP = `Usage: groundfix serve [--role all|web|worker]
       groundfix worker              (the same as serve --role worker)

Run the GitHub App with Probot's server in this process, the same as "npm start". Probot reads APP_ID,
PRIVATE_KEY, WEBHOOK_SECRET, PORT and the GROUNDFIX_* variables from the environment or .env (see .env.example).

  --role all     answer webhooks and run the jobs in this process (the default)
  --role web     answer webhooks (and GET /ping, GET /ready) only; jobs go to Redis
  --role worker  run jobs from Redis only, no HTTP server
web and worker need GROUNDFIX_REDIS_URL, the queue they share. Exit code 2 with one line for a setting
that cannot work, Redis configured but unreachable included. SIGTERM or SIGINT stops within 15 s: no new
jobs, the running ones are stopped and handed back to the Redis queue (without Redis they are dropped).
`;
