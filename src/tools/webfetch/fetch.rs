//! The HTTP side of WebFetch: one GET per hop with the existing `ureq` 2 client, redirects
//! followed by hand (so a loop is named and a hop to another host goes back to the model,
//! whose next call passes the permission gate for that host), the body read up to a cap.
//!
//! No header but `User-Agent`, `Accept` and `Accept-Encoding` is ever sent: no cookies, no credentials (a URL
//! with `user:pass@` is refused, since ureq would turn it into a Basic auth header), no
//! proxy from the environment.
use super::redirect::{self, Hop, HopCheck};
use std::io::Read;
use std::time::{Duration, Instant};
use url::Url;

/// Limits of one fetch.
#[derive(Debug, Clone, Copy)]
pub struct FetchLimits {
    /// Body bytes read at most; the rest of a longer body is never read.
    pub max_bytes: usize,
    /// The whole fetch (every hop, headers and body) must end within this.
    pub time_limit: Duration,
    /// Same-host redirects followed at most.
    pub max_redirects: usize,
}

/// A fetched page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The URL the body came from (after same-host redirects).
    pub url: String,
    pub status: u16,
    /// `Content-Type` without parameters, lower case (empty when absent).
    pub content_type: String,
    /// The `charset` parameter of `Content-Type`, lower case (empty when absent).
    pub charset: String,
    /// The body with its `Content-Encoding` undone (decode.rs).
    pub body: Vec<u8>,
    /// The body was longer than the cap: `body` is its first `max_bytes` bytes.
    pub truncated: bool,
}

/// What a fetch ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    Page(Page),
    /// A redirect to another host: not followed (the model asks again, through the gate).
    OtherHost {
        from: String,
        to: String,
        status: u16,
    },
    /// A same-host redirect the permission rules would ask about (super::redirect).
    HandedBack {
        from: String,
        to: String,
        status: u16,
        why: String,
    },
}

/// Parse and check a model-given URL: http or https, a host, no credentials. The URL comes
/// back in its one canonical spelling (super::urlnorm): what the rules see is what is fetched.
pub fn parse_url(raw: &str) -> Result<Url, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err("no url provided".into());
    }
    let u = Url::parse(raw).map_err(|e| format!("invalid url {raw:?}: {e}"))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(format!(
            "unsupported url scheme {:?} (http and https only)",
            u.scheme()
        ));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(format!("url without a host: {raw}"));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("urls with credentials (user:password@) are refused".into());
    }
    Ok(super::urlnorm::normalise(&u))
}

/// The host of a URL as permission rules see it: lower case, without a trailing dot.
pub fn host_of(u: &Url) -> String {
    u.host_str()
        .unwrap_or("")
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Redirects are followed only to the same host (any port or scheme): a permission rule
/// names a host, so a hop to another one (even `www.`) must pass the gate as a new call.
fn same_host(a: &Url, b: &Url) -> bool {
    host_of(a) == host_of(b)
}

/// The TLS roots are the agent's (util/net.rs: system store, SSL_CERT_FILE); proxies are
/// not used for fetched pages.
fn agent(left: Duration, https: bool) -> ureq::Agent {
    let mut b = ureq::AgentBuilder::new();
    if https {
        b = b.tls_config(crate::util::net::tls_config());
    }
    b.redirects(0)
        .timeout_connect(left.min(Duration::from_secs(10)))
        .timeout(left)
        .user_agent(concat!(
            "bash-agent/",
            env!("CARGO_PKG_VERSION"),
            " (WebFetch)"
        ))
        .build()
}

/// GET `start`, following same-host redirects that `check` lets through (every hop is
/// checked against the permission rules). Blocking: the caller runs it on a thread and
/// stops waiting at the time limit or on Ctrl+C.
pub fn fetch(start: &Url, lim: FetchLimits, check: &HopCheck) -> Result<Fetched, String> {
    let t0 = Instant::now();
    let mut url = start.clone();
    let mut seen: Vec<String> = vec![url.to_string()];
    loop {
        let left = lim.time_limit.saturating_sub(t0.elapsed());
        if left.is_zero() {
            return Err(time_limit_error(lim));
        }
        let resp = match agent(left, url.scheme() == "https")
            .get(url.as_str())
            .set("Accept", "text/html, text/markdown, text/plain, */*;q=0.5")
            .set("Accept-Encoding", super::decode::ACCEPT_ENCODING)
            .call()
        {
            Ok(r) => r,
            Err(ureq::Error::Status(code, r)) => {
                return Err(format!("HTTP {code} {} from {url}", r.status_text()));
            }
            Err(ureq::Error::Transport(t)) => {
                if t0.elapsed() >= lim.time_limit || is_timeout(&t) {
                    return Err(time_limit_error(lim));
                }
                return Err(format!("fetching {url} failed: {t}"));
            }
        };
        let status = resp.status();
        if (300..400).contains(&status) && status != 304 {
            let Some(loc) = resp.header("location").map(str::to_string) else {
                return Err(format!(
                    "HTTP {status} from {url} without a Location header"
                ));
            };
            let next = url
                .join(&loc)
                .map_err(|e| format!("bad redirect Location {loc:?} from {url}: {e}"))?;
            let next = parse_url(next.as_str())?;
            if !same_host(&url, &next) {
                return Ok(Fetched::OtherHost {
                    from: url.to_string(),
                    to: next.to_string(),
                    status,
                });
            }
            match check(&next) {
                Hop::Follow => {}
                Hop::Refuse(why) => return Err(redirect::refused(&url, &next, &why)),
                Hop::HandBack(why) => {
                    return Ok(Fetched::HandedBack {
                        from: url.to_string(),
                        to: next.to_string(),
                        status,
                        why,
                    })
                }
            }
            if seen.iter().any(|s| s == next.as_str()) {
                seen.push(next.to_string());
                return Err(format!("redirect loop: {}", seen.join(" -> ")));
            }
            seen.push(next.to_string());
            if seen.len() > lim.max_redirects + 1 {
                return Err(format!(
                    "too many redirects (more than {}) starting at {start}",
                    lim.max_redirects
                ));
            }
            url = next;
            continue;
        }
        let content_type = resp
            .header("content-type")
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let charset = super::decode::charset_param(resp.header("content-type").unwrap_or(""));
        let mut body = Vec::new();
        // The cap counts decompressed bytes.
        let mut reader = super::decode::body_reader(resp)?.take(lim.max_bytes as u64 + 1);
        if let Err(e) = reader.read_to_end(&mut body) {
            if t0.elapsed() >= lim.time_limit || is_io_timeout(&e) {
                return Err(time_limit_error(lim));
            }
            return Err(format!("reading {url} failed: {e}"));
        }
        let truncated = body.len() > lim.max_bytes;
        body.truncate(lim.max_bytes);
        return Ok(Fetched::Page(Page {
            url: url.to_string(),
            status,
            content_type,
            charset,
            body,
            truncated,
        }));
    }
}

/// The error of a fetch that ran out of time.
pub fn time_limit_error(lim: FetchLimits) -> String {
    format!(
        "the fetch did not finish within the time limit ({} s; BASH_AGENT_WEBFETCH_TIMEOUT_MS)",
        lim.time_limit.as_secs_f64()
    )
}

fn is_timeout(t: &ureq::Transport) -> bool {
    use std::error::Error;
    let mut src = t.source();
    while let Some(e) = src {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return is_io_timeout(io);
        }
        src = e.source();
    }
    t.to_string().contains("timed out")
}

fn is_io_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert!(parse_url("https://example.com/a").is_ok());
        assert!(parse_url("ftp://example.com/a")
            .unwrap_err()
            .contains("scheme"));
        assert!(parse_url("https://u:p@example.com/")
            .unwrap_err()
            .contains("credentials"));
        assert!(parse_url("not a url").unwrap_err().contains("invalid url"));
        assert_eq!(parse_url("").unwrap_err(), "no url provided");
        let u = parse_url("https://Docs.Example.COM./x").unwrap();
        assert_eq!(host_of(&u), "docs.example.com");
    }

    #[test]
    fn only_the_same_host_is_followed() {
        let a = parse_url("http://example.com/").unwrap();
        let b = parse_url("https://EXAMPLE.com:8443/x").unwrap();
        let c = parse_url("https://www.example.com/").unwrap();
        assert!(same_host(&a, &b));
        assert!(!same_host(&a, &c));
    }
}
