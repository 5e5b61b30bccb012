//! "Read" is an allow-list (docs/tools-and-policy.md, "The read-only list"): a simple
//! command runs unasked in the default mode only when its program is known to read only
//! and every argument keeps it so. What is not on the list — a program never seen, an
//! option that writes, executes or reaches the network, an argument known only at run
//! time where an option could hide — asks.
use super::wrap::{base, shape};
use super::{Cmd, Word};

/// Programs whose every option only reads (or prints): any argument is fine.
const ANY_ARGS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "echo",
    "pwd",
    "true",
    "false",
    ":",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "du",
    "df",
    "which",
    "whereis",
    "type",
    "test",
    "[",
    "id",
    "whoami",
    "uname",
    "printenv",
    "nl",
    "tac",
    "rev",
    "cut",
    "tr",
    "paste",
    "fold",
    "column",
    "comm",
    "diff",
    "cmp",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "od",
    "hexdump",
    "strings",
    "grep",
    "egrep",
    "fgrep",
    "jq",
    "seq",
    "sleep",
    "expr",
    "dirs",
    "groups",
    "locale",
    "nproc",
    "arch",
    "tty",
    "uptime",
    "free",
    "pgrep",
    "wait",
    "jobs",
    "set",
    "exit",
    "return",
    "exec",
    "time",
    "xargs",
    "shift",
];

/// Tools whose `--version` only prints.
const VERSIONED: &[&str] = &[
    "python", "python3", "node", "npm", "npx", "cargo", "rustc", "go", "gcc", "cc", "clang",
    "make", "git", "bash", "sh", "ruby", "perl", "java", "deno", "pip", "pip3", "yarn", "pnpm",
    "docker", "kubectl", "tsc", "rg", "fd", "jq", "bun", "uv", "rustup",
];

/// Whether `cmd` only reads (its words, its assignments and its redirections).
pub fn read_only(cmd: &Cmd) -> bool {
    if cmd.writes || !cmd.assigns.iter().all(|n| safe_assignment(n)) {
        return false;
    }
    if cmd.words.is_empty() {
        return true;
    }
    if cmd.declaration {
        // `declare -n r=PATH` makes a later `r=.` set PATH.
        return !cmd.words.iter().skip(1).any(|w| match w.lit() {
            Some(o) => o.starts_with('-') && o.contains('n'),
            None => true,
        });
    }
    let s = shape(&cmd.words);
    if s.privileged
        || s.inline_code
        || s.wrapper_effect
        || !s.env_assigns.iter().all(|n| safe_assignment(n))
    {
        return false;
    }
    let Some(prog) = s.key.first().and_then(Word::lit) else {
        return false;
    };
    // `./cat` is not cat; `/usr/bin/cat` is.
    if prog.contains('/')
        && !["/bin/", "/usr/bin/", "/usr/local/bin/"]
            .iter()
            .any(|d| prog.strip_prefix(d).is_some_and(|r| !r.contains('/')))
    {
        return false;
    }
    program(base(prog), &s.key[1..])
}

/// Variables whose value changes what a later program runs or reads as its configuration.
pub fn safe_assignment(name: &str) -> bool {
    // `PATH[0]=.` and `PATH+=:.` set PATH.
    let name = name.split('[').next().unwrap_or("").trim_end_matches('+');
    const NAMES: &[&str] = &[
        "PATH",
        "IFS",
        "ENV",
        "BASH_ENV",
        "CDPATH",
        "PS4",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
        "PERL5OPT",
        "PERL5LIB",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "NODE_OPTIONS",
        "RUBYOPT",
        "HOME",
        "RIPGREP_CONFIG_PATH",
        "SHELL",
        "TMPDIR",
    ];
    const PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_", "BASH_FUNC", "XDG_"];
    !name.is_empty() && !NAMES.contains(&name) && !PREFIXES.iter().any(|p| name.starts_with(p))
}

/// All arguments literal (a run-time word could be an option that writes).
fn lits(args: &[Word]) -> Option<Vec<&str>> {
    args.iter().map(Word::lit).collect()
}

/// `x` is `full` or an abbreviation of it (getopt_long takes any unambiguous prefix:
/// `--outp=f` is `--output=f`).
fn long_is(x: &str, full: &str) -> bool {
    let Some(name) = x.strip_prefix("--") else {
        return false;
    };
    let name = name.split('=').next().unwrap_or("");
    !name.is_empty() && full.strip_prefix("--").is_some_and(|f| f.starts_with(name))
}

/// A short option cluster (`-rno`) holding `c`.
fn short_has(a: &str, c: char) -> bool {
    a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c)
}

fn program(name: &str, args: &[Word]) -> bool {
    if ANY_ARGS.contains(&name) {
        return true;
    }
    let Some(a) = lits(args) else {
        return false;
    };
    if VERSIONED.contains(&name) && a == ["--version"] {
        return true;
    }
    let none = |bad: &[&str]| {
        a.iter().all(|x| {
            !bad.iter()
                .any(|b| x == b || x.starts_with(&format!("{b}=")))
        })
    };
    match name {
        "git" => super::git::read_only(&a),
        "find" => none(&[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ]),
        "fd" | "fdfind" => !a.iter().any(|x| {
            short_has(x, 'x')
                || short_has(x, 'X')
                || long_is(x, "--exec")
                || long_is(x, "--exec-batch")
        }),
        "rg" => a
            .iter()
            .all(|x| !x.starts_with("--pre") && !x.starts_with("--hostname-bin")),
        "ag" => !a.iter().any(|x| long_is(x, "--pager")),
        // `ps e`/`ps auxe` prints every process's environment (the agent's keys included).
        "ps" => !a
            .iter()
            .any(|x| (!x.starts_with('-') && x.contains('e')) || x.contains("env")),
        "printf" => !a.iter().any(|x| short_has(x, 'v')),
        "read" => read_names(&a),
        "cd" | "pushd" => {
            // `cd` alone goes home, `cd -` back, `..` out of the workspace: the scope check
            // sees literal paths only.
            a.len() == 1
                && a[0] != "-"
                && !a[0].starts_with('+')
                && !a[0].split('/').any(|c| c == "..")
        }
        "sort" => !a.iter().any(|x| {
            short_has(x, 'o') || long_is(x, "--output") || long_is(x, "--compress-program")
        }),
        "uniq" => a.iter().filter(|x| !x.starts_with('-')).count() <= 1,
        "tree" => !a.iter().any(|x| short_has(x, 'o') || short_has(x, 'R')),
        "date" => !a.iter().any(|x| short_has(x, 's') || long_is(x, "--set")),
        "hostname" => a.iter().all(|x| {
            matches!(
                *x,
                "-s" | "-f" | "-i" | "-I" | "-d" | "-A" | "-a" | "--fqdn" | "--short"
            )
        }),
        "xxd" => {
            !a.iter().any(|x| short_has(x, 'r') || x.starts_with("--r"))
                && a.iter().filter(|x| !x.starts_with('-')).count() <= 1
        }
        "file" => !a.iter().any(|x| short_has(x, 'C') || *x == "--compile"),
        "env" => a
            .iter()
            .all(|x| x.starts_with('-') && !x.starts_with("-S") && !x.starts_with("--split")),
        "command" => matches!(a.first(), Some(&"-v" | &"-V")),
        "sed" => sed(&a),
        "awk" | "gawk" | "mawk" | "nawk" => awk(&a),
        "go" => match a.first() {
            Some(&"version") => true,
            Some(&"env") => !a.iter().any(|x| *x == "-w" || *x == "-u"),
            _ => false,
        },
        _ => false,
    }
}

/// `read [-r…] NAME…`: the names it sets are not ones that change what runs.
fn read_names(a: &[&str]) -> bool {
    let mut i = 0;
    while i < a.len() {
        let x = a[i];
        if x.starts_with('-') && x.len() > 1 {
            // Options taking a value: the value is the next word unless attached.
            if let Some(c) = x[1..].chars().find(|c| "adinNptu".contains(*c)) {
                let attached = x.len() > x.find(c).unwrap_or(0) + 1;
                if c == 'a' {
                    let name = if attached {
                        x.split_once('a').map(|p| p.1)
                    } else {
                        a.get(i + 1).copied()
                    };
                    if !name.is_some_and(safe_assignment) {
                        return false;
                    }
                }
                i += if attached { 1 } else { 2 };
                continue;
            }
        } else if !safe_assignment(x) {
            return false;
        }
        i += 1;
    }
    true
}

/// `sed` without `-i`, a script file, or a command that writes (`w`, `W`, the `w` flag)
/// or executes (`e`): only addresses with `p`/`d`/`q`/`=`, and `s///` with print flags.
fn sed(a: &[&str]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut explicit = false;
    let mut i = 0;
    let mut positional = Vec::new();
    while i < a.len() {
        let x = a[i];
        if x == "-e" || x == "--expression" {
            explicit = true;
            if let Some(s) = a.get(i + 1) {
                scripts.push(s);
            }
            i += 2;
            continue;
        }
        if let Some(s) = x.strip_prefix("--expression=") {
            explicit = true;
            scripts.push(s);
        } else if x.starts_with("--") && x != "--" {
            // Long options may be abbreviated (`--i` is `--in-place`): only these, whole.
            const SAFE: &[&str] = &[
                "--quiet",
                "--silent",
                "--regexp-extended",
                "--posix",
                "--debug",
                "--null-data",
                "--zero-terminated",
                "--separate",
                "--sandbox",
                "--unbuffered",
            ];
            if !SAFE.contains(&x) {
                return false;
            }
        } else if x.starts_with('-') && !x.starts_with("--") && x.len() > 1 {
            if x.contains('i') || x.contains('f') || x.contains('e') {
                return false;
            }
        } else {
            positional.push(x);
        }
        i += 1;
    }
    if !explicit {
        match positional.first() {
            Some(s) => scripts.push(s),
            None => return false,
        }
    }
    scripts
        .iter()
        .all(|s| s.split(['\n', ';']).all(|c| sed_command(c.trim())))
}

fn sed_command(c: &str) -> bool {
    // Strip a line address (`3`, `$`, `1,5`, `/re/`, `/a/,/b/`).
    let mut rest = c;
    loop {
        let before = rest;
        rest = rest.trim_start_matches(|ch: char| {
            ch.is_ascii_digit() || ch == '$' || ch == ',' || ch == '!'
        });
        if let Some(r) = rest.strip_prefix('/') {
            match r.find('/') {
                Some(j) if !r[..j].ends_with('\\') => rest = &r[j + 1..],
                _ => return false,
            }
        }
        if rest == before {
            break;
        }
    }
    let rest = rest.trim();
    if rest.is_empty() || matches!(rest, "p" | "d" | "q" | "=" | "P" | "n" | "N" | "D") {
        return true;
    }
    let Some(body) = rest.strip_prefix('s') else {
        return false;
    };
    let mut chars = body.chars();
    let Some(delim) = chars.next() else {
        return false;
    };
    if delim == '\\' || delim == '\n' {
        return false;
    }
    let mut seen = 0;
    let mut esc = false;
    let mut flags = String::new();
    for ch in chars {
        if seen == 2 {
            flags.push(ch);
        } else if esc {
            esc = false;
        } else if ch == '\\' {
            esc = true;
        } else if ch == delim {
            seen += 1;
        }
    }
    seen == 2 && flags.chars().all(|f| "gpiIMm0123456789".contains(f))
}

/// `awk` whose program neither runs commands (`system`, `|`), writes (`>`), nor loads
/// extensions; a program file (`-f`) is not read, so it asks.
fn awk(a: &[&str]) -> bool {
    let mut i = 0;
    while i < a.len() {
        let x = a[i];
        // Only `-F sep` and `-v name=value`: gawk's others load code (`-f`, `-i inplace`,
        // `-l`, `--source`) or write files (`-o`, `-p`, `-d`).
        if x == "-v" || x == "-F" {
            i += 2;
            continue;
        }
        if (x.starts_with("-F") || x.starts_with("-v")) && x.len() > 2 || x == "--" {
            i += 1;
            continue;
        }
        if x.starts_with('-') && x.len() > 1 {
            return false;
        }
        let p = x;
        return !(p.contains("system") || p.contains('|') || p.contains('>') || p.contains('@'));
    }
    false
}
