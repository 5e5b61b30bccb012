//! Every redirect hop of a WebFetch call is a URL the permission rules must see, like the
//! first one (docs/sandbox.md, "Rules on URLs and paths"): a same-host `302` to a denied
//! path is refused, and a hop that would need a question goes back to the model, whose
//! next call meets the gate. The rules live in `permission`, which `tools` cannot import:
//! the host hands the fetch a [`HopCheck`] made from its rules (a snapshot, since the fetch
//! runs on a thread of its own).
use url::Url;

/// What the rules say about one redirect hop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hop {
    /// Fetch it.
    Follow,
    /// A deny rule covers it: the call ends with this reason.
    Refuse(String),
    /// The rules would ask (or no allow rule covers it while one covered the start): the
    /// URL goes back to the model, unfetched.
    HandBack(String),
}

/// The check of one hop, made by the tool's host from its permission rules.
pub type HopCheck = Box<dyn Fn(&Url) -> Hop + Send + Sync>;

/// The check of a host without rules (`bash-agent tool`): every same-host hop is followed.
pub fn follow_all() -> HopCheck {
    Box::new(|_| Hop::Follow)
}

/// The error of a hop a deny rule refused.
pub fn refused(from: &Url, to: &Url, why: &str) -> String {
    format!("the redirect from {from} to {to} was not followed: {why}")
}

/// The tool's text for a hop handed back to the model.
pub fn handed_back(from: &str, to: &str, status: u16, why: &str) -> String {
    format!(
        "REDIRECT DETECTED: {from} redirects (HTTP {status}) to a URL the permission rules do not let this call fetch ({why}).\nRedirect URL: {to}\nNot followed: call WebFetch again with the redirect URL to fetch it (that call is checked against the permission rules)."
    )
}
