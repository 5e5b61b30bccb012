//! `--fallback-model`: when the model stays overloaded after the provider's retries (HTTP 529
//! or 503, or an in-stream `overloaded_error`), the call is made again with the fallback
//! model, and the rest of the run stays on it (going back would meet the same overload on
//! every call). Claude Code's flag of the same name does the same for its print mode.
use std::sync::Mutex;

/// Whether this run has switched to its fallback model.
#[derive(Default)]
pub struct Fallback {
    /// The model switched to, once engaged.
    active: Mutex<Option<String>>,
}

/// An error text that means "the model is overloaded": the provider's final message after
/// its retries.
pub fn is_overload(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.starts_with("http 529") || m.starts_with("http 503") || m.contains("overloaded")
}

impl Fallback {
    /// The model in force when the fallback is engaged.
    pub fn model(&self) -> Option<String> {
        self.active
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether an error of a call with nothing received yet will be taken over by the
    /// fallback model (`configured`, not yet engaged, and not the model that failed).
    pub fn would_take(&self, configured: Option<&str>, failed_model: &str, msg: &str) -> bool {
        match configured {
            Some(f) => f != failed_model && self.model().is_none() && is_overload(msg),
            None => false,
        }
    }

    /// Switch to `model` for the rest of the run.
    pub fn engage(&self, model: &str) {
        *self.active.lock().unwrap_or_else(|p| p.into_inner()) = Some(model.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overload_errors_and_one_switch() {
        assert!(is_overload(
            "HTTP 529: Overloaded (POST x) (gave up after 3 retries)"
        ));
        assert!(is_overload("HTTP 503: busy (POST x)"));
        assert!(is_overload("Stream error: overloaded_error"));
        assert!(!is_overload("HTTP 401: bad key (POST x)"));
        let f = Fallback::default();
        assert!(!f.would_take(None, "a", "HTTP 529: x"));
        assert!(!f.would_take(Some("a"), "a", "HTTP 529: x"));
        assert!(f.would_take(Some("b"), "a", "HTTP 529: x"));
        f.engage("b");
        assert_eq!(f.model().as_deref(), Some("b"));
        assert!(!f.would_take(Some("b"), "a", "HTTP 529: x"));
    }
}
