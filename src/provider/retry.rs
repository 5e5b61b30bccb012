//! Retry policy: which failures are retried, the backoff, cancellable sleeps, and the
//! error text taken from a provider's error body.
use crate::util::cancel::Cancel;
use std::time::{Duration, Instant};

/// HTTP statuses worth another attempt.
pub fn retryable_status(code: u16) -> bool {
    matches!(code, 408 | 409 | 429 | 500..=599)
}

/// The provider's `error.message` (or `message`), else the body (trimmed, capped), else
/// `(empty)`.
pub fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let m = v
            .pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .and_then(|m| m.as_str());
        if let Some(m) = m {
            return m.to_string();
        }
    }
    let t = body.trim();
    if t.is_empty() {
        return "(empty)".into();
    }
    let mut end = t.len().min(2000);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    t[..end].to_string()
}

/// Exponential backoff with ±50 % jitter.
pub fn backoff(base_ms: u64, retry: u32) -> Duration {
    let exp = base_ms.saturating_mul(1u64 << retry.min(10));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let jitter = 0.5 + f64::from(nanos % 1000) / 1000.0;
    Duration::from_millis((exp as f64 * jitter) as u64)
}

/// Sleep in small steps; false when cancelled.
pub fn sleep_unless_cancelled(d: Duration, cancel: &Cancel) -> bool {
    let until = Instant::now() + d;
    loop {
        if cancel.is_cancelled() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(20)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(r#"{"type":"error","error":{"type":"x","message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(error_message("  "), "(empty)");
        assert_eq!(error_message("plain text\n"), "plain text");
    }

    #[test]
    fn backoff_grows_with_jitter() {
        for r in 0..4 {
            let d = backoff(100, r).as_millis() as u64;
            let exp = 100 << r;
            assert!(d >= exp / 2 && d <= exp * 3 / 2, "{r}: {d}");
        }
    }

    #[test]
    fn statuses() {
        for c in [408, 409, 429, 500, 503, 529] {
            assert!(retryable_status(c), "{c}");
        }
        for c in [400, 401, 403, 404, 413] {
            assert!(!retryable_status(c), "{c}");
        }
    }
}
