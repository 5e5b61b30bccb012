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

/// Pipeline elements with leading `VAR=x`, `(`, `{`, `!`, `nohup`, `time`, `env`… removed.
pub(super) fn commands(seg: &str) -> Vec<String> {
    seg.split('|')
        .map(|c| {
            let mut words: Vec<&str> = c.split_whitespace().collect();
            while let Some(&w) = words.first() {
                let stripped = w.trim_start_matches(['(', '{', '!']);
                if stripped.is_empty()
                    || ["nohup", "time", "env", "exec", "command", "nice", "builtin"]
                        .contains(&stripped)
                    || (stripped.contains('=')
                        && !stripped.starts_with('-')
                        && !stripped.starts_with('='))
                {
                    words.remove(0);
                } else {
                    words[0] = stripped;
                    break;
                }
            }
            words.join(" ")
        })
        .filter(|c| !c.is_empty())
        .collect()
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
