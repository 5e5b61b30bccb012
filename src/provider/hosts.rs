//! Which vendor's hosted API a base URL points at, and the base URLs of each vendor.
//!
//! Two rules hang on this: what a request may contain (the official hosts reject fields
//! they do not document, so each gets only its own; docs/providers.md) and where a key
//! may go (a vendor's key only ever to that vendor's host, `config.rs`). The host is
//! compared exactly (parsed URL, case-insensitive, without the trailing dot of a fully
//! qualified name), never by substring, so `https://api.openai.com.example.net` is not
//! OpenAI and `https://api.openai.com./v1` is (DNS resolves both spellings alike).
use super::models::Vendor;

pub const OPENAI_BASE: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_BASE: &str = "https://api.anthropic.com/v1";
/// DeepSeek's OpenAI-compatible base (chat completions, Responses). DeepSeek documents
/// `https://api.deepseek.com` and, for OpenAI compatibility, `…/v1`; both work.
pub const DEEPSEEK_BASE: &str = "https://api.deepseek.com";
/// DeepSeek's Anthropic-compatible base as DeepSeek documents it for the Anthropic SDKs
/// (which append `/v1/messages`).
pub const DEEPSEEK_ANTHROPIC_BASE: &str = "https://api.deepseek.com/anthropic";

/// The host of a URL, normalised for comparison: lower-cased, without the trailing dot of
/// a fully qualified name (`None` when it does not parse).
pub fn host(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(normal_host))
}

/// A host name as it is compared: lower-case, no trailing dot(s).
pub fn normal_host(h: &str) -> String {
    h.trim_end_matches('.').to_ascii_lowercase()
}

/// The vendor whose official API `url` is, `None` for any other server.
pub fn vendor_of(url: &str) -> Option<Vendor> {
    match host(url)?.as_str() {
        "api.openai.com" => Some(Vendor::OpenAi),
        "api.anthropic.com" => Some(Vendor::Anthropic),
        "api.deepseek.com" => Some(Vendor::DeepSeek),
        _ => None,
    }
}

pub fn is_openai(url: &str) -> bool {
    vendor_of(url) == Some(Vendor::OpenAi)
}

pub fn is_deepseek(url: &str) -> bool {
    vendor_of(url) == Some(Vendor::DeepSeek)
}

/// The environment variable holding the key of a vendor.
pub fn key_var(v: Vendor) -> &'static str {
    match v {
        Vendor::Anthropic => "ANTHROPIC_API_KEY",
        Vendor::OpenAi => "OPENAI_API_KEY",
        Vendor::DeepSeek => "DEEPSEEK_API_KEY",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_exactly() {
        assert_eq!(vendor_of("https://API.openai.com/v1"), Some(Vendor::OpenAi));
        assert_eq!(vendor_of(DEEPSEEK_ANTHROPIC_BASE), Some(Vendor::DeepSeek));
        assert_eq!(vendor_of("https://api.openai.com.example.net/v1"), None);
        assert_eq!(
            vendor_of("https://api.openai.com./v1"),
            Some(Vendor::OpenAi)
        );
        assert_eq!(
            vendor_of("https://u:p@API.Anthropic.com../v1"),
            Some(Vendor::Anthropic)
        );
        assert_eq!(vendor_of("https://api.anthropic.com.evil.net/v1"), None);
        assert_eq!(vendor_of("http://127.0.0.1:9/v1"), None);
        assert_eq!(vendor_of("not a url"), None);
    }
}
