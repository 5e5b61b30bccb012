//! The command classifier (docs/tools-and-policy.md, with the documented fixes).
use super::scope::{harmless_device, Places};
use super::words::{
    clean, commands, contains_any, is_device_disk, path_like, split_redirect, split_segments,
    starts_any,
};
use super::{NETWORK, R, SYSTEM, W, WORKSPACE, X};
use std::path::{Path, PathBuf};

/// Classify a Bash command: the octal bits it needs (`0o4000` = system read, …).
pub fn classify(command: &str, cwd: &Path, projects_root: &Path) -> u32 {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    classify_in(command, &Places::new(cwd, projects_root, &home))
}

/// [`classify`] as the permission gate reads it: a path under `/tmp` or the session store
/// is workspace, so `rm -rf /tmp/x` needs workspace write and is no "workspace read"
/// (docs/interactive.md, "Permissions"). The policy check itself keeps using [`classify`].
pub fn classify_for_gate(command: &str, cwd: &Path, projects_root: &Path) -> u32 {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    classify_in(
        command,
        &Places::new(cwd, projects_root, &home).temp_as_workspace(),
    )
}

/// [`classify`] with explicit places (tests, the file guard).
pub fn classify_in(command: &str, places: &Places) -> u32 {
    let orig = substitute_assigned(&command.replace("\\\n", " "));
    if orig.trim().is_empty() {
        return 0;
    }
    let low = orig.to_lowercase();
    let mut req = 0u32;
    if low.contains("/dev/tcp") || low.contains("/dev/udp") {
        req |= (R | W) << NETWORK;
    }
    for (seg, oseg) in split_segments(&low)
        .iter()
        .zip(split_segments(&orig).iter())
    {
        req |= segment(seg, oseg, places);
    }
    if req == 0 {
        R << WORKSPACE
    } else {
        req
    }
}

fn segment(s: &str, orig: &str, places: &Places) -> u32 {
    let mut req = 0u32;
    let cmds = commands(s);
    let net_marker = contains_any(s, &["curl ", "wget ", "http ", "https://", "http://"]);
    for c in &cmds {
        // a. privilege and machine-level commands
        if ["sudo", "su", "doas", "pkexec"].contains(&c.as_str())
            || starts_any(
                c,
                &[
                    "sudo ", "su ", "doas ", "pkexec ", "shutdown", "reboot", "halt", "poweroff",
                ],
            )
        {
            req |= X << SYSTEM;
        }
        if starts_any(
            c,
            &["mkfs", "fdisk", "diskutil", "mount ", "umount ", "parted "],
        ) {
            req |= W << SYSTEM;
        }
        // b./c. network
        if starts_any(c, &["git clone", "git fetch", "git pull", "git ls-remote"]) {
            req |= R << NETWORK;
        }
        if starts_any(c, &["git push", "scp "]) {
            req |= W << NETWORK;
        }
        // e. execution in the workspace
        if starts_any(
            c,
            &[
                "./",
                "bash ",
                "sh ",
                "zsh ",
                "python",
                "node ",
                "ruby ",
                "perl ",
                "npm test",
                "npm run",
                "make",
                "cargo test",
                "cargo build",
                "cargo run",
                "go test",
                "go run",
                "go build",
                "npx ",
                "git commit",
                "git add",
                "git checkout",
                "git merge",
                "git rebase",
                "git stash",
                "if ",
                "for ",
                "while ",
                "case ",
            ],
        ) {
            req |= X << WORKSPACE;
        }
        // Running a program by path needs execute on that path's scope.
        if let Some(first) = c.split_whitespace().next() {
            let p = clean(first);
            if (p.starts_with('/') || p.starts_with("../") || p.starts_with('~')) && path_like(p) {
                if let Some(sc) = places.scope(p) {
                    req |= X << sc;
                }
            }
        }
        // d. deleting the root
        let words: Vec<&str> = c.split_whitespace().collect();
        if words.first() == Some(&"rm")
            && words
                .iter()
                .any(|w| w.starts_with('-') && w.contains(['r', 'f']))
            && words.iter().skip(1).any(|w| matches!(clean(w), "/" | "/*"))
        {
            req |= W << SYSTEM;
        }
    }
    if net_marker {
        req |= R << NETWORK;
    }
    if contains_any(
        s,
        &[
            "scp ",
            "curl -d ",
            "curl --data",
            "--upload-file",
            "curl --form",
        ],
    ) || contains_any(
        orig,
        &["curl -F ", "curl -T ", "curl -X POST", "curl -X PUT"],
    ) {
        req |= W << NETWORK;
    }
    let to_shell = contains_any(
        s,
        &[
            "| bash",
            "|bash",
            "| sh",
            "|sh",
            "| zsh",
            "|zsh",
            "eval ",
            "source <(",
            "bash <(",
            "sh <(",
            "bash -c $(",
            "sh -c $(",
            "bash -c \"$(",
        ],
    );
    if to_shell && contains_any(s, &["curl", "wget", "http://", "https://"]) {
        req |= X << NETWORK;
    }
    if contains_any(
        s,
        &[
            "function ",
            "()",
            "{",
            " if ",
            " for ",
            " while ",
            " case ",
            ":(){:|:&};:",
        ],
    ) {
        req |= X << WORKSPACE;
    }
    // f. writing segments
    let mut redir = s.to_string();
    for harmless in [
        "2>&1",
        ">&2",
        "1>&2",
        "2>/dev/null",
        "&>/dev/null",
        ">/dev/null",
        "> /dev/null",
        ">/dev/stderr",
        "> /dev/stderr",
        ">/dev/stdout",
        "> /dev/stdout",
        "->",
        "=>",
        ">=",
    ] {
        redir = redir.replace(harmless, " ");
    }
    let writing = redir.contains('>')
        || contains_any(s, &["tee ", " rm ", "sed -i", " -delete", "truncate "])
        || cmds.iter().any(|c| {
            starts_any(
                c,
                &[
                    "mkdir ",
                    "touch ",
                    "cp ",
                    "mv ",
                    "rm ",
                    "rmdir ",
                    "ln ",
                    "chmod ",
                    "chown ",
                    "git fetch",
                    "git pull",
                    "git clone",
                    "git commit",
                    "git add",
                    "git checkout",
                    "git merge",
                    "git rebase",
                    "git stash",
                    "npm install",
                    "pnpm install",
                    "yarn install",
                    "cargo build",
                    "go test",
                    "npm test",
                    "dd ",
                ],
            )
        });
    let bits = if writing { R | W } else { R };
    let mut flag = if writing { 1 } else { 0 };
    // g. path tokens (redirections glued to a word are split off first)
    let toks: Vec<&str> = s.split_whitespace().flat_map(split_redirect).collect();
    let mut add = |p: &str, b: u32, flag: &mut i32| {
        let p = clean(p);
        if is_device_disk(p) && b & W != 0 {
            req |= W << SYSTEM;
        }
        if let Some(sc) = places.scope(p) {
            req |= b << sc;
        }
        if !p.is_empty() && !p.starts_with('&') && !harmless_device(p) {
            *flag = 3;
        }
    };
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let next_bits = match t {
            ">" | ">>" | "1>" | "1>>" | "&>" | "&>>" | "2>" | "2>>" => Some(W),
            "<>" => Some(R | W),
            "<" => Some(R),
            _ => None,
        };
        if let Some(b) = next_bits {
            if let Some(next) = toks.get(i + 1) {
                add(next, b, &mut flag);
            }
            i += 2;
            continue;
        }
        if let Some(rest) = t.strip_prefix("<>") {
            add(rest, R | W, &mut flag);
        } else if let Some(rest) = ["&>>", "&>", "2>>", "2>", "1>>", "1>", ">>", ">"]
            .iter()
            .find_map(|p| t.strip_prefix(p))
        {
            if !rest.starts_with('&') {
                add(rest, W, &mut flag);
            }
        } else if let Some(rest) = t.strip_prefix('<') {
            if !rest.starts_with('(') && !rest.starts_with('<') {
                add(rest, R, &mut flag);
            }
        } else if let Some(rest) = t.strip_prefix("of=") {
            add(rest, W, &mut flag);
        } else if let Some(rest) = t.strip_prefix("if=") {
            add(rest, R, &mut flag);
        } else if path_like(clean(t)) {
            add(t, bits, &mut flag);
        }
        i += 1;
    }
    // h. a writing segment without an explicit path writes the workspace
    if flag == 1 {
        req |= W << WORKSPACE;
    }
    req
}

/// `F=/etc/passwd; cat $F` → `F=/etc/passwd; cat /etc/passwd`: the values of variables
/// the command itself assigns replace their later `$NAME` / `${NAME}` uses, so the paths
/// they hold are scoped like literal ones.
fn substitute_assigned(cmd: &str) -> String {
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut out = String::with_capacity(cmd.len());
    for word in cmd.split_inclusive(|c: char| c.is_whitespace() || c == ';') {
        let piece = expand(word, &vars);
        let bare = piece.trim_end_matches(|c: char| c.is_whitespace() || c == ';');
        let bare = bare.trim_start_matches(['(', '{']);
        if let Some((name, value)) = bare.split_once('=') {
            let ok = !name.is_empty()
                && !name.as_bytes()[0].is_ascii_digit()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if ok {
                let v = value.trim_matches(|c| c == '"' || c == '\'').to_string();
                vars.retain(|(n, _)| n != name);
                vars.push((name.to_string(), v));
            }
        }
        out.push_str(&piece);
    }
    out
}

/// `$NAME` and `${NAME}` of the known variables replaced in `word`.
fn expand(word: &str, vars: &[(String, String)]) -> String {
    if vars.is_empty() || !word.contains('$') {
        return word.to_string();
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let (name, used) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let n = after
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            (&after[..n], n)
        };
        match vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) if !name.is_empty() => {
                out.push_str(v);
                rest = &after[used..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
