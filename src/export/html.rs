//! The HTML transcript: one self-contained file (inline CSS, no script, no font, no image or
//! anything else fetched). Prompts and answers are rendered from markdown with pulldown-cmark;
//! raw HTML inside them is shown as text, images become links, and only http(s), mailto and
//! in-page links keep their target. Every other piece of text is HTML-escaped. Long tool
//! results are collapsed in `<details>`.
use super::{call_label, cost_text, result_view, Call, ResultView, Transcript};
use crate::usage::report::fmt_n;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// HTML-escape text (element content and attribute values).
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn safe_link(url: &str) -> bool {
    let l = url.trim().to_ascii_lowercase();
    l.starts_with("http://")
        || l.starts_with("https://")
        || l.starts_with("mailto:")
        || l.starts_with('#')
}

/// Markdown to HTML that cannot run, load or inject anything.
pub fn md_to_html(md: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(md, opts).map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::Image {
            dest_url, title, ..
        }) => {
            let dest = if safe_link(&dest_url) {
                dest_url
            } else {
                CowStr::Borrowed("#")
            };
            // The image is not loaded (no network): a link to it instead.
            Event::Start(Tag::Link {
                link_type: pulldown_cmark::LinkType::Inline,
                dest_url: dest,
                title,
                id: CowStr::Borrowed(""),
            })
        }
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) if !safe_link(&dest_url) => Event::Start(Tag::Link {
            link_type,
            dest_url: CowStr::Borrowed("#"),
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

const CSS: &str = "body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#1d1d1f;background:#fff}
h1{font-size:1.5em}header p{color:#666}
.turn{border-top:1px solid #ddd;margin-top:1.5em;padding-top:.5em}
.user{background:#eef4ff;border-left:4px solid #3b6fd8;padding:.4em 1em;border-radius:4px}
.assistant{padding:.2em 0}.label{font-weight:600;color:#555;font-size:.85em;text-transform:uppercase}
.tool{border:1px solid #ddd;border-radius:4px;margin:.6em 0;padding:.4em .8em;background:#fafafa}
.tool.error{border-color:#d33}pre{background:#f4f4f4;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
details summary{cursor:pointer;color:#444}.thinking{color:#666;font-style:italic}
@media (prefers-color-scheme:dark){body{background:#1b1b1d;color:#ddd}.user{background:#1f2a3d}.tool{background:#232326;border-color:#444}pre{background:#2a2a2e}details summary{color:#bbb}}";

fn call_html(out: &mut String, c: &Call) {
    let class = if c.error { "tool error" } else { "tool" };
    out.push_str(&format!(
        "<div class=\"{class}\"><div class=\"label\">Tool call</div><code>{}</code>\n",
        esc(&call_label(c))
    ));
    let input = serde_json::to_string_pretty(&c.input).unwrap_or_default();
    out.push_str(&format!(
        "<details><summary>Input</summary><pre><code>{}</code></pre></details>\n",
        esc(&input)
    ));
    match result_view(c) {
        None => out.push_str("<p><em>(no result recorded)</em></p>\n"),
        Some(ResultView {
            what,
            collapsed: Some((lines, bytes)),
            text,
        }) => out.push_str(&format!(
            "<details><summary>{what} ({lines} lines, {bytes} bytes)</summary><pre><code>{}</code></pre></details>\n",
            esc(text)
        )),
        Some(ResultView { what, text, .. }) => out.push_str(&format!(
            "<div class=\"label\">{what}</div><pre><code>{}</code></pre>\n",
            esc(text)
        )),
    }
    out.push_str("</div>\n");
}

pub fn render(t: &Transcript) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>Session {}</title>\n<style>{CSS}</style></head><body>\n<header><h1>Session {}</h1><p>Project <code>{}</code> · exported {} · {} turns</p></header>\n",
        esc(&t.session),
        esc(&t.session),
        esc(&t.project),
        esc(&t.exported_at),
        t.turns.iter().filter(|x| x.n > 0).count()
    );
    if t.archived_messages > 0 {
        out.push_str(&format!(
            "<p><em>{} messages were compacted out of the context; they are included below.</em></p>\n",
            t.archived_messages
        ));
    }
    for turn in &t.turns {
        out.push_str(&format!(
            "<section class=\"turn\" id=\"turn-{}\">\n",
            turn.n
        ));
        if turn.n > 0 {
            out.push_str(&format!(
                "<div class=\"user\"><div class=\"label\">Turn {} · user</div>\n{}</div>\n",
                turn.n,
                md_to_html(&turn.prompt)
            ));
        }
        for r in &turn.replies {
            if !r.thinking.trim().is_empty() {
                out.push_str(&format!(
                    "<details class=\"thinking\"><summary>Thinking</summary>{}</details>\n",
                    md_to_html(&r.thinking)
                ));
            }
            if !r.text.trim().is_empty() {
                out.push_str(&format!(
                    "<div class=\"assistant\"><div class=\"label\">Assistant</div>\n{}</div>\n",
                    md_to_html(&r.text)
                ));
            }
            for c in &r.calls {
                call_html(&mut out, c);
            }
        }
        out.push_str("</section>\n");
    }
    let u = &t.usage;
    out.push_str(&format!(
        "<section class=\"turn\"><h2>Usage</h2><table><tr><th>calls</th><th>input</th><th>output</th><th>cache read</th><th>cache write</th><th>time</th><th>cost</th></tr>\n<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}s</td><td>{}</td></tr></table>\n",
        u.calls,
        fmt_n(u.usage.input),
        fmt_n(u.usage.output),
        fmt_n(u.usage.cache_read),
        fmt_n(u.usage.cache_creation),
        u.elapsed_ms as f64 / 1000.0,
        esc(&cost_text(u))
    ));
    if !t.sub_sessions.is_empty() {
        out.push_str(&format!(
            "<p>Includes the sub-agent sessions {}.</p>\n",
            esc(&t.sub_sessions.join(", "))
        ));
    }
    out.push_str("</section>\n</body></html>\n");
    out
}
