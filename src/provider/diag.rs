//! What the user reads about a call: the outcome of an HTTP error status with a hint for
//! the usual causes, the verbose request line, and the key redacted from server text.
use super::attempt::Outcome;
use super::outgoing::Body;
use super::retry::{error_message, retryable_status};
use super::ProviderKind;
use std::time::Duration;

/// Fields a server may reject without the request losing its meaning.
/// (`max_completion_tokens`: OpenAI's "Use 'max_completion_tokens' instead" of a
/// reasoning model the table does not know, renamed on the retry.)
const OPTIONAL_FIELDS: [&str; 8] = [
    "thinking",
    "effort",
    "budget_tokens",
    "reasoning_effort",
    "reasoning",
    "output_config",
    "stream_options",
    "max_completion_tokens",
];

/// A 400 whose message names one of the optional fields as unsupported or unknown
/// (LiteLLM: `UnsupportedParamsError: … does not support parameters: ['reasoning_effort',
/// 'thinking']`; OpenAI-style servers: `Unrecognized request argument`, pydantic's
/// `Extra inputs are not permitted`).
pub fn names_unsupported_param(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    let says = [
        "unsupported",
        "not support",
        "unrecognized",
        "unknown",
        "extra inputs",
        "not permitted",
        "not allowed",
        "invalid field",
    ]
    .iter()
    .any(|w| b.contains(w));
    says && OPTIONAL_FIELDS.iter().any(|f| b.contains(f))
}

pub(crate) fn status_outcome(
    kind: ProviderKind,
    url: &str,
    code: u16,
    retry_after: Option<Duration>,
    body: &str,
) -> Outcome {
    let server = error_message(body);
    let mut ctx = format!("POST {url}");
    if let Some(h) = status_hint(kind, url, code, &server) {
        ctx.push_str("; ");
        ctx.push_str(h);
    }
    if code == 404 {
        if let Some(note) = super::models::not_found_note(&server) {
            ctx.push_str("; ");
            ctx.push_str(&note);
        }
    }
    let msg = format!("HTTP {code}: {server} ({ctx})");
    if code == 400 && names_unsupported_param(body) {
        return Outcome::Unsupported {
            msg,
            server: server.to_string(),
        };
    }
    if retryable_status(code) {
        Outcome::Retry {
            msg,
            after: retry_after,
        }
    } else {
        Outcome::Fatal(msg)
    }
}

/// The error for a 3xx answer, which is never followed: a model API has no reason to
/// redirect, and following one would send the key to wherever it points. The target is
/// shown without userinfo and control characters (it is the server's text).
pub(crate) fn redirect_message(url: &str, code: u16, location: &str) -> String {
    let to: String = crate::util::net::redact_userinfo(location)
        .chars()
        .filter(|c| !c.is_control())
        .take(300)
        .collect();
    let to = if to.is_empty() {
        "nowhere (no Location)".to_string()
    } else {
        to
    };
    format!(
        "HTTP {code}: the server redirects to {to} (POST {url}); a model API does not redirect, \
         so it was not followed and no key was sent there. If the API moved, set the base URL \
         to its new address"
    )
}

/// A hint for the usual causes of an HTTP error against a self-hosted server.
pub fn status_hint(kind: ProviderKind, url: &str, code: u16, server: &str) -> Option<&'static str> {
    let base = url
        .rsplit_once('/')
        .map(|(b, _)| b)
        .unwrap_or(url)
        .trim_end_matches('/');
    match code {
        404 | 405 if kind == ProviderKind::Claude && !base.ends_with("/v1") => {
            Some("Anthropic base URLs end in /v1")
        }
        404 | 405 if !base.ends_with("/v1") => {
            Some("OpenAI-compatible base URLs usually end in /v1")
        }
        404 => Some("check the base URL and the model name"),
        400 if server.contains("No connected db") => {
            Some("LiteLLM answers a wrong master key this way: check the API key")
        }
        401 | 403 => Some("check the API key"),
        _ => None,
    }
}

/// `[verbose] <note>` on stderr.
pub(crate) fn verbose_note(note: &str) {
    eprintln!("[verbose] {note}");
}

/// `[verbose] Request body (<KB>KB): <first 200 chars>...` on stderr (grey on a TTY).
pub(crate) fn verbose_body(body: &Body) {
    use std::io::IsTerminal;
    let line = line_of(body.len(), &body.prefix_chars(200));
    let err = std::io::stderr();
    if err.is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        eprintln!("\x1b[90m{line}\x1b[0m");
    } else {
        eprintln!("{line}");
    }
}

/// The verbose line (without colour): size in whole KB, the first 200 characters.
pub fn verbose_line(body: &str) -> String {
    let head: String = body.chars().take(200).collect();
    line_of(body.len(), &head)
}

fn line_of(len: usize, head: &str) -> String {
    format!("[verbose] Request body ({}KB): {head}...", len / 1024)
}

/// A message for the user (stderr, events.jsonl) with neither the key nor the base URL's
/// password (`https://user:pass@host`) in it.
pub(crate) fn scrub(msg: &str, cfg: &super::ProviderConfig) -> String {
    crate::util::net::hide_password(&redact(msg, &cfg.api_key), &cfg.base_url)
}

/// A provider's error text never repeats the API key (some proxies echo it back).
pub(crate) fn redact(msg: &str, key: &str) -> String {
    if key.len() >= 8 && msg.contains(key) {
        msg.replace(key, "<redacted>")
    } else {
        msg.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_400_forms_that_name_a_field() {
        for body in [
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support the effort parameter."}}"#,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior."}}"#,
            r#"{"error":{"message":"Unrecognized request argument supplied: reasoning_effort"}}"#,
            r#"{"error":{"message":"unknown field `thinking`"}}"#,
            r#"{"error":{"message":"output_config: Extra inputs are not permitted"}}"#,
            r#"{"error":{"message":"budget_tokens: Unsupported parameter"}}"#,
        ] {
            assert!(names_unsupported_param(body), "{body}");
        }
        assert!(!names_unsupported_param(
            r#"{"error":{"message":"max_tokens: too large"}}"#
        ));
    }

    #[test]
    fn verbose_line_format() {
        let body = format!("{{\"x\":\"{}\"}}", "é".repeat(1500));
        let l = verbose_line(&body);
        assert!(
            l.starts_with("[verbose] Request body (2KB): {\"x\":\"éé"),
            "{l}"
        );
        assert_eq!(
            l.chars().count(),
            "[verbose] Request body (2KB): ".len() + 200 + 3
        );
    }
}
