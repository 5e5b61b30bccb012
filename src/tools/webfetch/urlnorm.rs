//! One spelling per URL, so a permission rule and the model's text meet on the same form
//! (docs/sandbox.md, "Rules on URLs and paths"). The model writes the URL; the rule was
//! written by the person. Compared as raw text, `HTTP://`, `/x/../secret/`, a host with a
//! trailing dot, `0x7f.0.0.1` or `/%73ecret` all name the page a deny rule names while
//! matching none of its text.
//!
//! The WHATWG parser of the `url` crate already lower-cases scheme and host, reads every
//! IPv4 spelling (`0x7f.0.0.1`, `2130706433`, `127.1`, `0177.0.0.1`, `127.0.0.1.`),
//! percent-decodes the host, drops a default port and removes dot segments (`%2e` too).
//! What it leaves is done here: a domain's trailing dot, an IPv4-mapped IPv6 host, the
//! percent-encoding of characters that need none (RFC 3986 §6.2.2.2: `%73` is `s`), the
//! case of the other escapes, and the fragment (never sent).
//!
//! [`loose`] is a second, wider form for deny and ask rules only: every escape decoded and
//! empty segments collapsed, as many servers read a path (`/secret%2Fkey`, `//secret/`).
//! A refusal may err on the safe side; an allow rule never matches through it.
use url::{Host, Url};

/// The canonical form of a parsed URL: what rules are matched against and what is fetched.
pub fn normalise(u: &Url) -> Url {
    let mut u = u.clone();
    u.set_fragment(None);
    match u.host() {
        Some(Host::Domain(d)) if d.ends_with('.') => {
            let bare = d.trim_end_matches('.').to_string();
            if !bare.is_empty() {
                let _ = u.set_host(Some(&bare));
            }
        }
        Some(Host::Ipv6(a)) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                let _ = u.set_host(Some(&v4.to_string()));
            }
        }
        _ => {}
    }
    let path = unescape_unreserved(u.path());
    if path != u.path() {
        u.set_path(&path);
    }
    if let Some(q) = u.query().map(unescape_unreserved) {
        u.set_query(Some(&q));
    }
    // Decoded dots (`%2E` was decoded above only where it is a plain character) and the
    // new path go through the parser once more, so dot segments are removed again.
    Url::parse(u.as_str()).unwrap_or(u)
}

/// The wider form for deny and ask rules: path and query fully percent-decoded, `//`
/// collapsed, dot segments removed after decoding. Text, not a URL: it is never fetched.
pub fn loose(u: &Url) -> String {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let path = decode(u.path());
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let mut out = format!("{}://{}", u.scheme(), u.host_str().unwrap_or(""));
    if let Some(p) = u.port() {
        out.push_str(&format!(":{p}"));
    }
    out.push('/');
    out.push_str(&parts.join("/"));
    if path.ends_with('/') && !parts.is_empty() {
        out.push('/');
    }
    if let Some(q) = u.query() {
        out.push('?');
        out.push_str(&decode(q));
    }
    out
}

/// `%XX` of an unreserved character (letters, digits, `-._~`) decoded; every other escape
/// kept, its hex digits in upper case.
fn unescape_unreserved(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let escape = (b[i] == b'%' && i + 2 < b.len())
            .then(|| Some(hex(b[i + 1])? * 16 + hex(b[i + 2])?))
            .flatten();
        if let Some(v) = escape {
            let c = v as char;
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~') {
                out.push(c);
            } else {
                out.push('%');
                out.push(b[i + 1].to_ascii_uppercase() as char);
                out.push(b[i + 2].to_ascii_uppercase() as char);
            }
            i += 3;
            continue;
        }
        // A multi-byte character is copied whole (the parser has escaped them anyway).
        let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(ch);
        i += ch.len_utf8().max(1);
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// A host as rules compare it: lower case, no trailing dot, an IP address in its one
/// spelling (`0x7f.0.0.1` and `2130706433` are `127.0.0.1`). A leading `*.` is kept.
pub fn normalise_host(h: &str) -> String {
    let h = h.trim().trim_end_matches('.').to_ascii_lowercase();
    let (wild, bare) = match h.strip_prefix("*.") {
        Some(b) => ("*.", b),
        None => ("", h.as_str()),
    };
    let canon = match Host::parse(bare) {
        Ok(Host::Ipv6(a)) => match a.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => format!("[{a}]"),
        },
        Ok(host) => host.to_string(),
        Err(_) => bare.to_string(),
    };
    format!("{wild}{}", canon.trim_end_matches('.'))
}

/// A stand-in for `*` that the URL parser keeps as it is, in a host and in a path.
const STAR: &str = "zq0starq0z";

/// A rule's URL pattern (`https://Docs.rs./a/../b/*`) in the form [`normalise`] gives
/// URLs, its `*` wildcards kept. A pattern the parser cannot read (a `*` in the port) has
/// only its scheme and host lower-cased and a trailing dot removed.
pub fn normalise_pattern(p: &str) -> String {
    let p = p.trim();
    let Some((scheme, rest)) = p.split_once("://") else {
        return p.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let replaced = p.replace('*', STAR);
    if !p.contains(STAR) {
        if let Ok(u) = Url::parse(&replaced) {
            if u.host().is_some() && u.username().is_empty() {
                let mut s = normalise(&u).to_string();
                // The parser adds `/` to a bare authority: `https://docs.rs*` must still
                // match `https://docs.rs/x`.
                if tail.is_empty() && s.ends_with('/') {
                    s.pop();
                }
                return s.replace(STAR, "*");
            }
        }
    }
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => authority.split_at(i),
        _ => (authority, ""),
    };
    format!(
        "{}://{}{port}{tail}",
        scheme.to_ascii_lowercase(),
        host.trim_end_matches('.').to_ascii_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        normalise(&Url::parse(s).unwrap()).to_string()
    }

    #[test]
    fn every_spelling_of_one_page_is_one_url() {
        let want = "http://127.0.0.1:8080/secret/";
        for s in [
            "http://127.0.0.1:8080/secret/",
            "HTTP://127.0.0.1:8080/secret/",
            "http://127.0.0.1:8080/x/../secret/",
            "http://127.0.0.1:8080/x/%2e%2e/secret/",
            "http://127.0.0.1.:8080/secret/",
            "http://0x7f.0.0.1:8080/secret/",
            "http://2130706433:8080/secret/",
            "http://127.1:8080/secret/",
            "http://0177.0.0.1:8080/secret/",
            "http://%31%32%37.0.0.1:8080/secret/",
            "http://[::ffff:127.0.0.1]:8080/secret/",
            "http://127.0.0.1:8080/%73ecret/",
            "http://127.0.0.1:8080/%73ecret/#frag",
        ] {
            assert_eq!(n(s), want, "{s}");
        }
        assert_eq!(
            n("https://Example.COM./a?q=%41%2f"),
            "https://example.com/a?q=A%2F"
        );
        assert_eq!(n("http://h/%2E%2E/x"), "http://h/x");
        assert_eq!(n("http://h/a%20b/é"), "http://h/a%20b/%C3%A9");
    }

    #[test]
    fn the_loose_form_decodes_everything() {
        let l = |s: &str| loose(&Url::parse(s).unwrap());
        assert_eq!(l("http://h:81/a%2Fb//c/"), "http://h:81/a/b/c/");
        assert_eq!(l("http://h/x%2F..%2Fsecret"), "http://h/secret");
        assert_eq!(l("http://h/"), "http://h/");
        assert_eq!(l("http://h/a?x=%2F"), "http://h/a?x=/");
    }

    /// Random URL-ish text: no panic, and normalising twice changes nothing.
    #[test]
    fn normalising_is_total_and_idempotent() {
        let alphabet: Vec<char> = "hH:/.%2e5fAs~-_?#@[]*0x7f1 é".chars().collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3000 {
            let mut s = String::from(if x.is_multiple_of(2) {
                "http://"
            } else {
                "HTTPS://"
            });
            for _ in 0..(x % 24) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            let _ = normalise_pattern(&s);
            let _ = normalise_host(&s[7..]);
            if let Ok(u) = Url::parse(&s) {
                let once = normalise(&u);
                assert_eq!(normalise(&once), once, "{s}");
                let _ = loose(&u);
            }
        }
    }

    #[test]
    fn hosts_and_patterns() {
        assert_eq!(normalise_host("0x7F.0.0.1."), "127.0.0.1");
        assert_eq!(normalise_host("*.Example.com."), "*.example.com");
        assert_eq!(normalise_host("[::ffff:127.0.0.1]"), "127.0.0.1");
        assert_eq!(normalise_host("docs.rs"), "docs.rs");
        assert_eq!(
            normalise_pattern("HTTP://0x7f.0.0.1:8080/a/../secret/*"),
            "http://127.0.0.1:8080/secret/*"
        );
        assert_eq!(normalise_pattern("https://docs.rs*"), "https://docs.rs*");
        assert_eq!(
            normalise_pattern("https://*.Docs.rs./x"),
            "https://*.docs.rs/x"
        );
        assert_eq!(normalise_pattern("https://h:*/x"), "https://h:*/x");
        assert_eq!(normalise_pattern("not a url*"), "not a url*");
    }
}
