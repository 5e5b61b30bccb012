//! Tool names as the model sees them: `mcp__<server>__<tool>`, in the characters model APIs
//! accept (`[A-Za-z0-9_-]`) and at most 64 long, and unique in a request (the Anthropic API
//! refuses a request whose tools share a name).
//!
//! A tool whose name already fits keeps the plain name. One that had to change (a character
//! replaced, the whole too long, or a leading `_` that could make `server__tool` split two
//! ways) ends with `_` and eight hex digits of a hash of the server's and the tool's own
//! names, so `a b` and `a_b`, or two long names that differ only past the cut, come out
//! different, and the same tool gets the same name in every run.
use std::collections::HashSet;

/// Longest tool name the model APIs take.
pub const MAX_LEN: usize = 64;

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// FNV-1a, 64 bits: stable across runs and builds (std's hasher is seeded per process).
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The name of `tool` of `server`, before any clash within the list is settled.
pub fn full_name(server: &str, tool: &str) -> String {
    let plain = format!("mcp__{server}__{tool}");
    if plain.len() <= MAX_LEN && tool.chars().all(allowed) && !tool.starts_with('_') {
        return plain;
    }
    hashed(server, tool, 0)
}

/// The cleaned name cut to leave room for `_` and the hash of (`server`, `tool`, `round`).
fn hashed(server: &str, tool: &str, round: u32) -> String {
    let clean: String = tool
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    let mut n = format!("mcp__{server}__{clean}");
    n.truncate(MAX_LEN - 9);
    let h = fnv(&[server.as_bytes(), tool.as_bytes(), &round.to_le_bytes()]);
    format!("{n}_{:08x}", h as u32)
}

/// Names for one server's tools, in its order: a tool listed twice is kept once (`None` for
/// the repeat), and a name already taken is hashed again until it is free.
pub fn unique(server: &str, tools: &[&str]) -> Vec<Option<String>> {
    let mut raw_seen = HashSet::new();
    let mut taken = HashSet::new();
    tools
        .iter()
        .map(|&t| {
            if !raw_seen.insert(t) {
                return None;
            }
            let mut name = full_name(server, t);
            let mut round = 1;
            while taken.contains(&name) {
                name = hashed(server, t, round);
                round += 1;
            }
            taken.insert(name.clone());
            Some(name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(n: &str) -> bool {
        n.len() <= MAX_LEN && n.chars().all(allowed)
    }

    #[test]
    fn names_fit_and_never_clash() {
        assert_eq!(full_name("fs", "read_file"), "mcp__fs__read_file");
        let long_a = format!("{}A", "x".repeat(70));
        let long_b = format!("{}B", "x".repeat(70));
        let names = unique("srv", &["a b", "a_b", "a.b", &long_a, &long_b, "a_b", "_x"]);
        let got: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
        assert_eq!(got.len(), 6, "{got:?}");
        assert_eq!(names[5], None, "a repeated tool is kept once");
        let set: HashSet<_> = got.iter().collect();
        assert_eq!(set.len(), got.len(), "{got:?}");
        assert!(got.iter().all(|n| ok(n)), "{got:?}");
        assert_eq!(got[1], "mcp__srv__a_b");
        assert!(got[0].starts_with("mcp__srv__a_b_"), "{got:?}");
        // The same in every run.
        assert_eq!(unique("srv", &["a b", "a_b"])[0].as_deref(), Some(got[0]));
        // A leading '_' cannot pass for another server's name (server "s_", tool "x").
        assert_ne!(full_name("s", "_x"), full_name("s_", "x"));
    }

    #[test]
    fn a_taken_hashed_name_is_hashed_again() {
        let first = full_name("s", "a b");
        let names = unique("s", &[&first["mcp__s__".len()..], "a b"]);
        assert_eq!(names[0].as_deref(), Some(first.as_str()));
        let second = names[1].clone().unwrap();
        assert_ne!(second, first);
        assert!(ok(&second));
    }
}
