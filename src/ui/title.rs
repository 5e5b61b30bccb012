//! The terminal title with live stats (format in docs/replay.md, "Display"):
//! `ESC]0;[⏳ ]<model> T:… R:… I:…(<cache%>) O:… C:… S:…tok/s BEL ESC]9;4;<3|0> BEL`.
//! The caller writes it to stderr, and only when stderr is a TTY (never into piped output).
use crate::session::stats::Stats;

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The cache-hit share: `round(cache_read / (cache_read + input) * 100)%`, or `—`.
pub fn cache_pct(input: u64, cache_read: u64) -> String {
    let total = input as u128 + cache_read as u128;
    if total == 0 {
        return "—".to_string();
    }
    let pct = (cache_read as u128 * 100 + total / 2) / total;
    format!("{pct}%")
}

/// The full title sequence (OSC 0 title + OSC 9;4 progress). `busy` adds the `⏳ ` prefix
/// and progress state 3; idle is state 0.
pub fn title(stats: &Stats, model: &str, busy: bool) -> String {
    let prefix = if busy { "⏳ " } else { "" };
    format!(
        "\x1b]0;{prefix}{model} T:{} R:{} I:{}({}) O:{} C:{} S:{}tok/s\x07\x1b]9;4;{}\x07",
        thousands(stats.current_turn_count),
        thousands(stats.agent_request_count),
        thousands(stats.total_input_tokens + stats.total_cache_read_tokens),
        cache_pct(stats.total_input_tokens, stats.total_cache_read_tokens),
        thousands(stats.total_output_tokens),
        thousands(stats.current_context_tokens),
        thousands(stats.last_call_speed_tok_per_sec),
        if busy { 3 } else { 0 },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_percent() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(cache_pct(0, 0), "—");
        assert_eq!(cache_pct(100, 0), "0%");
        assert_eq!(cache_pct(1, 2), "67%");
        assert_eq!(cache_pct(1, 1), "50%");
    }

    #[test]
    fn formats_the_sequence() {
        let s = Stats {
            current_turn_count: 2,
            agent_request_count: 1500,
            total_input_tokens: 1200,
            total_output_tokens: 40,
            total_cache_read_tokens: 800,
            current_context_tokens: 2140,
            last_call_speed_tok_per_sec: 55,
            ..Stats::default()
        };
        assert_eq!(
            title(&s, "claude-x", true),
            "\x1b]0;⏳ claude-x T:2 R:1,500 I:2,000(40%) O:40 C:2,140 S:55tok/s\x07\x1b]9;4;3\x07"
        );
        assert!(title(&s, "m", false).starts_with("\x1b]0;m T:2"));
        assert!(title(&s, "m", false).ends_with("\x1b]9;4;0\x07"));
    }
}
