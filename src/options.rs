//! The closed sets and value syntax of the command line: output format, reasoning effort,
//! thinking mode, and the `k|m|g` counts. A leaf module, so the flags (`cli`), the
//! configuration and the providers share one definition, and a bad value is refused by clap
//! before anything runs (a usage error, exit 2).

/// Output mode (`--output-format`; `config::output_format` reads the flag, so a failure
/// before the session exists can still answer in the format asked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Human,
    /// Only the final answer on stdout.
    Text,
    /// One result object on stdout at the end.
    Json,
    StreamJson,
}

/// Reasoning effort (`--effort`, `EFFORT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Effort {
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

impl Effort {
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Xhigh => "xhigh",
            Effort::Max => "max",
        }
    }
}

/// Thinking mode (`--thinking`, `THINKING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Thinking {
    Adaptive,
    Enabled,
    Disabled,
}

impl Thinking {
    pub fn as_str(self) -> &'static str {
        match self {
            Thinking::Adaptive => "adaptive",
            Thinking::Enabled => "enabled",
            Thinking::Disabled => "disabled",
        }
    }
}

/// clap value parser of the `k|m|g` count flags: checked at parse time, kept as text.
pub fn count_flag(s: &str) -> Result<String, String> {
    parse_count_suffix(s)
        .map(|_| s.to_string())
        .ok_or_else(|| s.to_string())
}

/// clap value parser of the plain integer flags: checked at parse time, kept as text.
pub fn int_flag(s: &str) -> Result<String, String> {
    s.trim()
        .parse::<u64>()
        .map(|_| s.to_string())
        .map_err(|_| s.to_string())
}

/// `digits[k|m|g]`, case-insensitive, decimal multipliers.
pub fn parse_count_suffix(s: &str) -> Option<u64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let (num, mul) = match t.as_bytes()[t.len() - 1].to_ascii_lowercase() {
        b'k' => (&t[..t.len() - 1], 1_000u64),
        b'm' => (&t[..t.len() - 1], 1_000_000),
        b'g' => (&t[..t.len() - 1], 1_000_000_000),
        _ => (t, 1),
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    num.parse::<u64>().ok()?.checked_mul(mul)
}
