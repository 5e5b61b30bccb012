//! Splitting a command line into segments, pipeline commands and words.
use super::scope::is_sensitive;

/// Strip quotes, `of=`/`if=`, trailing `;`, `,`, `)`.
pub(super) fn clean(tok: &str) -> &str {
    let t = tok.trim_matches(|c| c == '"' || c == '\'' || c == '`');
    let t = t
        .strip_prefix("of=")
        .or_else(|| t.strip_prefix("if="))
        .unwrap_or(t);
    t.trim_end_matches([';', ',', ')'])
        .trim_matches(|c| c == '"' || c == '\'')
}

/// Is this word a path the classifier should look at?
pub(super) fn path_like(t: &str) -> bool {
    if t.is_empty() || t.starts_with('-') || t.contains("://") || t.contains('=') {
        return false;
    }
    t.starts_with('/')
        || t.starts_with('~')
        || t.starts_with("$home")
        || t.starts_with("${home}")
        || t == "."
        || t == ".."
        || t.contains('/')
        || (t.contains('.') && is_sensitive(t))
}

/// `x>/etc/y` → `x`, `>/etc/y`; `3<>/dev/tcp/h/80` → `<>/dev/tcp/h/80`. Quoted words and
/// arrows (`->`, `=>`) are left alone.
pub(super) fn split_redirect(t: &str) -> Vec<&str> {
    if t.starts_with(['"', '\'', '`']) {
        return vec![t];
    }
    match t.find(['<', '>']) {
        Some(pos) if pos > 0 => {
            let head = &t[..pos];
            if head.ends_with(['-', '=', '<', '>']) || head.contains('(') {
                vec![t]
            } else if head.bytes().all(|b| b.is_ascii_digit()) || head == "&" {
                // `2>x`, `&>x` keep their prefix (handled below); `3<>x` → `<>x`
                if head == "1" || head == "2" || head == "&" {
                    vec![t]
                } else {
                    vec![&t[pos..]]
                }
            } else {
                vec![head, &t[pos..]]
            }
        }
        _ => vec![t],
    }
}

/// Split on `&&`, `||`, `;`, newlines and a lone `&` (not `>&`, `&>`, `<&`).
pub(super) fn split_segments(cmd: &str) -> Vec<String> {
    let b = cmd.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        let two = b.get(i..i + 2);
        let sep = if two == Some(b"&&") || two == Some(b"||") {
            2
        } else if b[i] == b';'
            || b[i] == b'\n'
            || (b[i] == b'&'
                && (i == 0 || (b[i - 1] != b'>' && b[i - 1] != b'<'))
                && b.get(i + 1) != Some(&b'>'))
        {
            1
        } else {
            0
        };
        if sep > 0 {
            out.push(cmd[start..i].trim().to_string());
            i += sep;
            start = i;
        } else {
            i += 1;
        }
    }
    out.push(cmd[start..].trim().to_string());
    out.retain(|s| !s.is_empty());
    out
}

/// Pipeline elements with the wrappers that run another command removed (`VAR=x`, `(`,
/// `{`, `!`, `env -i`, `time -p`, `exec -a NAME`, `nice -n N`, `timeout 5`, `xargs -n1`…),
/// the real command's name unquoted (`"sudo"`, `s\udo` → `sudo`).
pub(super) fn commands(seg: &str) -> Vec<String> {
    seg.split('|')
        .map(|c| {
            let mut words: Vec<String> = c.split_whitespace().map(str::to_string).collect();
            strip_wrappers(&mut words);
            words.join(" ")
        })
        .filter(|c| !c.is_empty())
        .collect()
}

/// Quotes and backslashes removed: what the shell makes of a plain word.
pub(super) fn dequote(w: &str) -> String {
    w.chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect()
}

/// `NAME=value` (a shell assignment word). Shared with the permission gate's parse
/// (`permission/bashparse/wrap.rs`).
pub fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !name.as_bytes()[0].is_ascii_digit()
        }
        None => false,
    }
}

/// The wrappers that run the command after them, with (the options taking a separate
/// argument, how many positional arguments come before the command). One table for the
/// sandbox's classification and the permission gate's parse.
pub fn wrapper(name: &str) -> Option<(&'static [&'static str], usize)> {
    Some(match name {
        "env" => (
            &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
            0,
        ),
        "time" => (&["-f", "--format", "-o", "--output"], 0),
        "exec" => (&["-a"], 0),
        "nice" => (&["-n", "--adjustment"], 0),
        "ionice" => (&["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"], 0),
        "nohup" | "builtin" | "setsid" | "command" | "coproc" => (&[], 0),
        "stdbuf" => (&["-i", "-o", "-e", "--input", "--output", "--error"], 0),
        "timeout" => (&["-s", "--signal", "-k", "--kill-after"], 1),
        "xargs" => (
            &[
                "-I",
                "-n",
                "-P",
                "-L",
                "-d",
                "-a",
                "-E",
                "-s",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--delimiter",
                "--arg-file",
                "--max-chars",
                "--replace",
            ],
            0,
        ),
        _ => return None,
    })
}

fn strip_wrappers(words: &mut Vec<String>) {
    while let Some(w) = words.first() {
        let stripped = w.trim_start_matches(['(', '{', '!']).to_string();
        let plain = dequote(&stripped);
        if plain.is_empty() || is_assignment(&plain) {
            words.remove(0);
            continue;
        }
        let Some((with_arg, positional)) = wrapper(&plain) else {
            words[0] = plain;
            return;
        };
        words.remove(0);
        let mut need_positional = positional;
        while let Some(o) = words.first() {
            let o = dequote(o);
            if o == "--" {
                words.remove(0);
                break;
            }
            if plain == "command" && (o == "-v" || o == "-V") {
                // `command -v x` only looks x up.
                words.clear();
                return;
            }
            if o.starts_with('-') && o.len() > 1 {
                words.remove(0);
                if with_arg.contains(&o.as_str()) && !words.is_empty() {
                    words.remove(0);
                }
            } else if plain == "env" && is_assignment(&o) {
                words.remove(0);
            } else if need_positional > 0 {
                need_positional -= 1;
                words.remove(0);
            } else {
                break;
            }
        }
    }
}

pub(super) fn starts_any(s: &str, list: &[&str]) -> bool {
    list.iter().any(|p| s.starts_with(p))
}

pub(super) fn contains_any(s: &str, list: &[&str]) -> bool {
    list.iter().any(|p| s.contains(p))
}

pub(super) fn is_device_disk(t: &str) -> bool {
    let d = match t.strip_prefix("/dev/") {
        Some(d) => d,
        None => return false,
    };
    ["sd", "hd", "vd", "xvd", "nvme", "disk", "rdisk", "mmcblk"]
        .iter()
        .any(|p| d.starts_with(p))
}
