//! WebFetch (docs/tools-and-policy.md, "WebFetch"): GET one http(s) URL and return the page
//! as markdown. The fetch runs inside the agent, not in a sandboxed child, so the tool keeps
//! the sandbox's network promise itself: `--no-network` and a policy mode without the
//! network read bit refuse it before any connection. Permission rules
//! (`WebFetch(domain:host)`) are applied by the gate before the call, on the URL's canonical
//! spelling (urlnorm.rs); a redirect to another host is handed back to the model instead of
//! followed, so its next call meets the gate, and a same-host hop is checked against the
//! same rules (redirect.rs).
//!
//! There is no secondary model to answer `prompt` with: the markdown is returned whole (up
//! to the result cap) with the prompt repeated above it, for the model to answer itself.
mod convert;
mod decode;
pub mod fetch;
mod html;
mod overflow;
pub mod redirect;
pub mod urlnorm;

use super::common::arg;
use super::{ToolHost, ToolOutput};
use fetch::{FetchLimits, Fetched};
use serde_json::Value;
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub use convert::html_to_markdown;

/// Default body cap (bytes read from the server at most).
pub const DEFAULT_MAX_BYTES: usize = 10 * 1024 * 1024;
/// Default time limit of one call.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Same-host redirects followed at most.
pub const MAX_REDIRECTS: usize = 10;

/// The limits from `BASH_AGENT_WEBFETCH_MAX_BYTES` and `BASH_AGENT_WEBFETCH_TIMEOUT_MS`.
pub fn limits_from_env() -> FetchLimits {
    let env = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&v| v > 0)
    };
    FetchLimits {
        max_bytes: env("BASH_AGENT_WEBFETCH_MAX_BYTES")
            .map(|b| b as usize)
            .unwrap_or(DEFAULT_MAX_BYTES),
        time_limit: Duration::from_millis(
            env("BASH_AGENT_WEBFETCH_TIMEOUT_MS").unwrap_or(DEFAULT_TIMEOUT_MS),
        ),
        max_redirects: MAX_REDIRECTS,
    }
}

/// Why this run may not fetch at all (before the URL is looked at).
fn network_refusal(bash_mode: u32) -> Option<String> {
    if crate::sandbox::settings().no_network {
        return Some(
            "WebFetch is refused under --no-network (the sandbox allows no network access in this run)"
                .into(),
        );
    }
    use crate::tools::policy::{check, NETWORK};
    check(0o4 << NETWORK, bash_mode)
        .err()
        .map(|e| format!("WebFetch needs network read access: {e}"))
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    if let Some(why) = network_refusal(ctx.limits().bash_mode) {
        return ToolOutput::error(&why, max);
    }
    let url = match fetch::parse_url(&arg(input, "url")) {
        Ok(u) => u,
        Err(e) => return ToolOutput::error(&e, max),
    };
    let prompt = arg(input, "prompt");
    let lim = limits_from_env();
    let check = ctx.web_hop_check(&url);
    match fetch_waiting(ctx, &url, lim, check) {
        Ok((Fetched::Page(p), text)) => {
            page_output(&p, &text, &prompt, max, &ctx.session().dir.join("webfetch"))
        }
        Ok((Fetched::OtherHost { from, to, status }, _)) => ToolOutput::text(
            true,
            &format!(
                "REDIRECT DETECTED: {from} redirects (HTTP {status}) to another host.\nRedirect URL: {to}\nNot followed: call WebFetch again with the redirect URL to fetch it (that call is checked against the permission rules for its host)."
            ),
            max,
        ),
        Ok((
            Fetched::HandedBack {
                from,
                to,
                status,
                why,
            },
            _,
        )) => ToolOutput::text(true, &redirect::handed_back(&from, &to, status, &why), max),
        Err(e) => ToolOutput::error(&e, max),
    }
}

/// Run the fetch and the conversion of its page on a thread and wait for them, giving up at
/// the time limit or on Ctrl+C. The conversion looks at the same deadline and the cancel flag
/// and stops itself; the fetch ends on its own socket timeouts; either result is dropped.
/// Returns what was fetched with the page as text (empty for a redirect).
fn fetch_waiting(
    ctx: &dyn ToolHost,
    url: &url::Url,
    lim: FetchLimits,
    check: redirect::HopCheck,
) -> Result<(Fetched, String), String> {
    let (tx, rx) = mpsc::channel();
    let u = url.clone();
    let t0 = Instant::now();
    let budget = html::Budget {
        deadline: Some(t0 + lim.time_limit),
        cancel: Some(ctx.cancel().clone()),
    };
    let spawned = std::thread::Builder::new()
        .name("webfetch".into())
        // The renderer recurses once per open element (at most html::MAX_DEPTH).
        .stack_size(32 * 1024 * 1024)
        .spawn(move || {
            let r = fetch::fetch(&u, lim, &check).and_then(|f| {
                let text = match &f {
                    Fetched::Page(p) => page_text(p, &budget, lim)?,
                    Fetched::OtherHost { .. } | Fetched::HandedBack { .. } => String::new(),
                };
                Ok((f, text))
            });
            let _ = tx.send(r);
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start the fetch: {e}"));
    }
    // A little past the limit: the fetch's own timeouts usually fire first, with a better message.
    let deadline = lim.time_limit + Duration::from_millis(500);
    loop {
        if ctx.cancel().is_cancelled() {
            return Err("interrupted".into());
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(r) => return r,
            Err(mpsc::RecvTimeoutError::Timeout) if t0.elapsed() >= deadline => {
                return Err(fetch::time_limit_error(lim));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err("internal error in WebFetch (the fetch thread ended)".into())
            }
        }
    }
}

/// The page's body as text: decoded from its charset, HTML converted to markdown with its
/// links made absolute. Err for a page that is not text, or a conversion that ran out of time
/// or was interrupted.
fn page_text(p: &fetch::Page, budget: &html::Budget, lim: FetchLimits) -> Result<String, String> {
    if !is_text(&p.content_type) {
        return Err(format!(
            "{} is not a text page (Content-Type {}); WebFetch returns HTML and text only",
            p.url, p.content_type
        ));
    }
    let html = is_html(&p.content_type, &p.body);
    let text = decode::to_text(&p.body, &p.charset, html);
    if !html {
        return Ok(text.into_owned());
    }
    let Some(md) = html::to_markdown_within(&text, budget) else {
        if budget.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            return Err("interrupted".into());
        }
        return Err(format!(
            "{} was fetched but its conversion to markdown did not finish within the time limit ({} s; BASH_AGENT_WEBFETCH_TIMEOUT_MS)",
            p.url,
            lim.time_limit.as_secs_f64()
        ));
    };
    Ok(match url::Url::parse(&p.url) {
        Ok(base) => convert::absolute_links(&md, &base),
        Err(_) => md,
    })
}

fn is_html(ct: &str, body: &[u8]) -> bool {
    if ct == "text/html" || ct == "application/xhtml+xml" {
        return true;
    }
    if !ct.is_empty() {
        return false;
    }
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    head.trim_start().starts_with("<!doctype html") || head.contains("<html")
}

fn is_text(ct: &str) -> bool {
    ct.is_empty()
        || ct.starts_with("text/")
        || ct.ends_with("+json")
        || ct.ends_with("+xml")
        || matches!(
            ct,
            "application/json" | "application/xml" | "application/javascript"
        )
}

/// The result; a text over the cap is saved whole in `save_dir` for Read ([`overflow`]).
fn page_output(
    p: &fetch::Page,
    body: &str,
    prompt: &str,
    max: usize,
    save_dir: &std::path::Path,
) -> ToolOutput {
    let mut head = format!(
        "URL: {}\nStatus: {}\nContent-Type: {}\n",
        p.url,
        p.status,
        if p.content_type.is_empty() {
            "(none)"
        } else {
            p.content_type.as_str()
        }
    );
    if p.truncated {
        head.push_str(&format!(
            "Note: the page is longer than the size cap; only its first {} bytes were read (BASH_AGENT_WEBFETCH_MAX_BYTES)\n",
            p.body.len()
        ));
    }
    if !prompt.trim().is_empty() {
        head.push_str(&format!(
            "Prompt: {}\n(no secondary model here: the page follows as markdown; answer the prompt from it)\n",
            prompt.trim()
        ));
    }
    match overflow::fit(save_dir, &head, body.trim(), max) {
        Some(cut) => ToolOutput::text(true, &cut, max),
        None => ToolOutput::text(true, &format!("{head}\n{}", body.trim()), max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_recognised_by_type_or_content() {
        assert!(is_html("text/html", b""));
        assert!(is_html("", b"<!DOCTYPE html><p>x"));
        assert!(!is_html("text/plain", b"<html>"));
        assert!(is_text("application/json"));
        assert!(!is_text("image/png"));
    }

    #[test]
    fn the_prompt_and_the_cap_are_noted() {
        let p = fetch::Page {
            url: "http://h/".into(),
            status: 200,
            content_type: "text/html".into(),
            charset: String::new(),
            body: b"<h1>Title</h1><p>Hello <b>you</b></p>".to_vec(),
            truncated: true,
        };
        let text = page_text(&p, &html::Budget::default(), limits_from_env()).unwrap();
        let d = tempfile::tempdir().unwrap();
        let out = page_output(&p, &text, "what is it?", 100_000, d.path());
        assert!(out.ok);
        assert!(out.conv.contains("# Title"), "{}", out.conv);
        assert!(out.conv.contains("Hello **you**"), "{}", out.conv);
        assert!(out.conv.contains("Prompt: what is it?"));
        assert!(out.conv.contains("size cap"));
        let img = fetch::Page {
            content_type: "image/png".into(),
            ..p
        };
        let lim = limits_from_env();
        assert!(page_text(&img, &html::Budget::default(), lim)
            .unwrap_err()
            .contains("not a text page"));
    }
}
