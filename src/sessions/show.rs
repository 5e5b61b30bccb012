//! `bash-agent sessions show NAME [--json]`: meta (path, last activity, running pid),
//! stats.json, usage and cost, plan.md, summary.txt and the last turns.

pub fn clip(s: &str, max: usize) -> String {
    let t = s.trim();
    if t.chars().count() <= max {
        return t.to_string();
    }
    let cut: String = t.chars().take(max).collect();
    format!("{cut}…")
}

pub fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}
