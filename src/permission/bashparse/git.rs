//! The git subcommands that only read (`git status|log|diff|show|blame|rev-parse|…`,
//! `git branch` listing, `git config --get`…). The arguments start after `git` with its
//! harmless global options removed; `-c`, `--config-env` and `--exec-path` were kept, so
//! they land here as a non-subcommand and ask.
const READERS: &[&str] = &[
    "status",
    "log",
    "show",
    "diff",
    "blame",
    "annotate",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "merge-base",
    "name-rev",
    "for-each-ref",
    "show-ref",
    "count-objects",
    "var",
    "version",
    "whatchanged",
    "diff-tree",
    "diff-files",
    "diff-index",
    "check-ignore",
    "check-attr",
    "grep",
    "show-branch",
    "cherry",
    "verify-commit",
    "verify-tag",
];

/// Options that write a file or run another program whatever the subcommand.
const NEVER: &[&str] = &[
    "--output",
    "-O",
    "--open-files-in-pager",
    "--ext-diff",
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--textconv",
];

pub(super) fn read_only(a: &[&str]) -> bool {
    let Some((&sub, rest)) = a.split_first() else {
        return false;
    };
    if rest.iter().any(|x| {
        NEVER.iter().any(|n| {
            x == n || x.starts_with(&format!("{n}=")) || (n.len() == 2 && x.starts_with(n))
                // parse-options takes an abbreviation: `git grep --open=cmd`.
                || (n.len() > 2 && x.len() > 2 && x.starts_with("--")
                    && n.starts_with(x.split('=').next().unwrap_or(x)))
        })
    }) {
        return false;
    }
    if READERS.contains(&sub) {
        return true;
    }
    let first = rest.first().copied();
    match sub {
        "branch" => listing(
            rest,
            &["--list", "-l"],
            &[
                "-a",
                "--all",
                "-r",
                "--remotes",
                "-v",
                "-vv",
                "--verbose",
                "--show-current",
                "--omit-empty",
            ],
        ),
        "tag" => listing(rest, &["--list", "-l"], &["-n"]),
        "remote" => {
            first == Some("get-url") || rest.iter().all(|x| matches!(*x, "-v" | "--verbose"))
        }
        "config" => {
            let reads = rest
                .iter()
                .any(|x| x.starts_with("--get") || matches!(*x, "--list" | "-l"))
                || matches!(first, Some("get" | "list"));
            let writes = rest.iter().any(|x| {
                matches!(
                    *x,
                    "--add"
                        | "--unset"
                        | "--unset-all"
                        | "--replace-all"
                        | "--rename-section"
                        | "--remove-section"
                        | "-e"
                        | "--edit"
                        | "set"
                        | "unset"
                        | "edit"
                )
            });
            reads && !writes
        }
        "stash" | "worktree" | "notes" => matches!(first, Some("list" | "show")),
        "reflog" => {
            !rest
                .iter()
                .any(|x| matches!(*x, "expire" | "delete" | "drop"))
                && match first {
                    None | Some("show") => true,
                    Some(x) => x.starts_with('-'),
                }
        }
        "submodule" => matches!(first, Some("status")),
        _ => false,
    }
}

/// `git branch`/`git tag` listing: no option outside `flags` (those taking a value:
/// `--contains X`, `--sort=…`, `--format=…`), and a name only when listing (a pattern).
fn listing(rest: &[&str], list: &[&str], flags: &[&str]) -> bool {
    const VALUED: &[&str] = &[
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--sort",
        "--format",
    ];
    /// Display options both take.
    const DISPLAY: &[&str] = &[
        "--no-color",
        "--column",
        "--no-column",
        "-i",
        "--ignore-case",
        "--color",
    ];
    let listing = rest.iter().any(|x| list.contains(x));
    let mut i = 0;
    while i < rest.len() {
        let x = rest[i];
        if list.contains(&x)
            || flags.contains(&x)
            || DISPLAY.contains(&x)
            || x.starts_with("--color=")
        {
            i += 1;
        } else if VALUED.contains(&x) {
            i += 2;
        } else if VALUED.iter().any(|v| x.starts_with(&format!("{v}="))) {
            i += 1;
        } else if x.starts_with('-') || !listing {
            return false;
        } else {
            i += 1;
        }
    }
    true
}
