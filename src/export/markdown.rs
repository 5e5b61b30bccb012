//! The markdown transcript: prompts and answers as written (their markdown kept), each tool
//! call with its input as JSON and its result in a fenced block, long results inside
//! `<details>` (collapsed where the markdown is rendered: GitHub, most editors).
use super::md_escape::{code_span, inline_text, prose};
use super::{call_label, cost_text, result_view, Call, ResultView, Transcript};
use crate::usage::report::fmt_n;

/// A code fence longer than any backtick run in `s`.
pub fn fence(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn fenced(lang: &str, s: &str) -> String {
    let f = fence(s);
    format!("{f}{lang}\n{}\n{f}\n", s.trim_end_matches('\n'))
}

fn call_md(out: &mut String, c: &Call) {
    out.push_str(&format!("**Tool call** {}\n\n", code_span(&call_label(c))));
    let input = serde_json::to_string_pretty(&c.input).unwrap_or_default();
    out.push_str(&fenced("json", &input));
    out.push('\n');
    match result_view(c) {
        None => out.push_str("*(no result recorded)*\n\n"),
        Some(ResultView {
            what,
            collapsed: Some((lines, bytes)),
            text,
        }) => out.push_str(&format!(
            "<details><summary>{what} ({lines} lines, {bytes} bytes)</summary>\n\n{}\n</details>\n\n",
            fenced("", text)
        )),
        Some(ResultView { what, text, .. }) => {
            out.push_str(&format!("{what}:\n\n{}\n", fenced("", text)))
        }
    }
}

pub fn render(t: &Transcript) -> String {
    let mut out = format!(
        "# Session {}\n\nProject {} · exported {} · {} turns\n\n",
        inline_text(&t.session),
        code_span(&t.project),
        t.exported_at,
        t.turns.iter().filter(|x| x.n > 0).count()
    );
    if t.archived_messages > 0 {
        out.push_str(&format!(
            "*{} messages were compacted out of the context; they are included below.*\n\n",
            t.archived_messages
        ));
    }
    for turn in &t.turns {
        if turn.n > 0 {
            out.push_str(&format!(
                "---\n\n## Turn {}: user\n\n{}\n\n",
                turn.n,
                prose(turn.prompt.trim_end())
            ));
        }
        for r in &turn.replies {
            if !r.thinking.trim().is_empty() {
                out.push_str(&format!(
                    "<details><summary>Thinking</summary>\n\n{}\n\n</details>\n\n",
                    prose(r.thinking.trim())
                ));
            }
            if !r.text.trim().is_empty() {
                out.push_str(&format!(
                    "### Assistant\n\n{}\n\n",
                    prose(r.text.trim_end())
                ));
            }
            for c in &r.calls {
                call_md(&mut out, c);
            }
        }
    }
    let u = &t.usage;
    out.push_str("---\n\n## Usage\n\n");
    out.push_str("| calls | input | output | cache read | cache write | time | cost |\n");
    out.push_str("| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    out.push_str(&format!(
        "| {} | {} | {} | {} | {} | {:.1}s | {} |\n",
        u.calls,
        fmt_n(u.usage.input),
        fmt_n(u.usage.output),
        fmt_n(u.usage.cache_read),
        fmt_n(u.usage.cache_creation),
        u.elapsed_ms as f64 / 1000.0,
        cost_text(u)
    ));
    if !t.sub_sessions.is_empty() {
        out.push_str(&format!(
            "\nIncludes the sub-agent sessions {}.\n",
            t.sub_sessions
                .iter()
                .map(|s| inline_text(s))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if u.estimated_calls > 0 {
        out.push_str(&format!(
            "\n{} calls had no usage from the server; their figures are estimates.\n",
            u.estimated_calls
        ));
    }
    out
}
