//! Request bodies in the reference's exact field order (docs/providers.md, "Request bodies").
//!
//! The canonical body is the Claude Messages shape; OpenAI chat and Responses bodies are
//! converted from the same inputs (conversation lines, system prompt, tools.json).
pub(crate) use super::blocks::*;
pub use super::omit::Omit;
use super::outgoing::Body;
use super::{ProviderConfig, ProviderKind, Request};
use crate::options::{Effort, Thinking};
use crate::util::jsonl::push_str;
use std::borrow::Cow;

/// The body for `kind`, exactly as sent, as one string.
pub fn build_body(kind: ProviderKind, cfg: &ProviderConfig, req: &Request) -> String {
    build_parts(kind, cfg, req).to_text()
}

/// The body for `kind` as parts: the stored lines a provider sends unchanged are borrowed
/// from the request, so a long session's body is never copied whole (see `outgoing.rs`).
pub fn build_parts<'a>(kind: ProviderKind, cfg: &ProviderConfig, req: &Request<'a>) -> Body<'a> {
    build_parts_omitting(kind, cfg, req, Omit::NONE)
}

/// [`build_parts`] without the optional fields in `omit` (a server refused them by name:
/// `omit.rs`).
pub fn build_parts_omitting<'a>(
    kind: ProviderKind,
    cfg: &ProviderConfig,
    req: &Request<'a>,
    omit: Omit,
) -> Body<'a> {
    let lean;
    let req = if omit.lean {
        lean = Request {
            disable_thinking: true,
            ..req.clone()
        };
        &lean
    } else {
        req
    };
    match kind {
        ProviderKind::Claude => claude_parts_omitting(cfg, req, omit),
        ProviderKind::OpenAi => super::openai::build_parts_omitting(cfg, req, omit),
        ProviderKind::Responses => super::responses::build_parts_omitting(cfg, req, omit),
    }
}

/// The hosted APIs whose reasoning parameters the defaults were made for. Anything else
/// (a local server, a gateway) may reject a parameter it does not know, so it gets
/// reasoning fields only when the user asked for them.
pub fn is_official(kind: ProviderKind, base_url: &str) -> bool {
    let b = if base_url.is_empty() {
        kind.default_base_url()
    } else {
        base_url
    };
    match kind {
        ProviderKind::Claude => is_official_anthropic(b) || super::hosts::is_deepseek(b),
        ProviderKind::OpenAi | ProviderKind::Responses => {
            super::hosts::vendor_of(b).is_some_and(|v| {
                matches!(
                    v,
                    super::models::Vendor::OpenAi | super::models::Vendor::DeepSeek
                )
            })
        }
    }
}

/// The thinking mode this call sends, `None` for no reasoning fields at all: forced off,
/// `disabled`, or a non-official server the user asked nothing of (`--effort` alone
/// counts as asking, with the default mode).
pub(crate) fn thinking_mode(cfg: &ProviderConfig, req: &Request) -> Option<Thinking> {
    if req.disable_thinking {
        return None;
    }
    let mode = match cfg.thinking {
        Some(t) => t,
        None if cfg.effort.is_some() || is_official(cfg.kind, &cfg.base_url) => Thinking::Adaptive,
        None => return None,
    };
    (mode != Thinking::Disabled).then_some(mode)
}

/// Whether this call asks for thinking.
pub(crate) fn thinking_on(cfg: &ProviderConfig, req: &Request) -> bool {
    thinking_mode(cfg, req).is_some()
}

/// The effort string, `high` when unset.
pub(crate) fn effort(cfg: &ProviderConfig) -> &'static str {
    cfg.effort.unwrap_or(Effort::High).as_str()
}

/// Canonical Claude body (the shape every request starts from):
/// `{"max_tokens":N,"messages":[...],"model":"M"[,"output_config":{"effort":"E"}],"stream":true[,"system":"…"][,"thinking":{"type":"T"}][,"tools":[…]]}`
pub fn claude_body(cfg: &ProviderConfig, req: &Request) -> String {
    claude_parts(cfg, req).to_text()
}

/// [`claude_body`] as parts: every stored line is spliced in as it is (borrowed), except
/// the assistant lines the strict rules clean and the lines that carry a cache
/// breakpoint (`claude_wire.rs` says which servers get either).
pub fn claude_parts<'a>(cfg: &ProviderConfig, req: &Request<'a>) -> Body<'a> {
    claude_parts_omitting(cfg, req, Omit::NONE)
}

fn claude_parts_omitting<'a>(cfg: &ProviderConfig, req: &Request<'a>, omit: Omit) -> Body<'a> {
    use super::claude_wire as cw;
    let grade = cw::anthropic_grade(cfg, req);
    let mut b = Body::new();
    let mut head = String::with_capacity(64);
    head.push_str("{\"max_tokens\":");
    head.push_str(&cfg.max_tokens.to_string());
    head.push_str(",\"messages\":[");
    b.push(head);
    let lines: Vec<&'a str> = req
        .messages
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    // About two parts a line (the comma, the line): sized once, a long session's list is
    // never regrown and copied.
    b.reserve(2 * lines.len() + 2);
    let mut marks = if grade {
        cw::breakpoints(&lines, |l| claude_message(l, true))
    } else {
        Vec::new()
    };
    for (i, &l) in lines.iter().enumerate() {
        let comma = |b: &mut Body<'a>| {
            if i > 0 {
                b.push(",");
            }
        };
        if let Some(k) = marks.iter().position(|(m, _)| *m == i) {
            comma(&mut b);
            b.push(marks.swap_remove(k).1);
            continue;
        }
        // A line with stored server blocks (web search) is rebuilt with them in place.
        if l.contains(super::server_tools::KEY) {
            comma(&mut b);
            b.push(claude_message(l, grade).into_owned());
            continue;
        }
        if !grade {
            comma(&mut b);
            match cw::foreign_extras_stripped(l) {
                Some(o) => b.push(o),
                None => b.push(l),
            }
            continue;
        }
        match cw::strict_assistant(l) {
            cw::Cleaned::Spliced(rest) => {
                // The separating comma and the line's head in one static part.
                b.push(if i > 0 {
                    cw::SEP_ASSISTANT_HEAD
                } else {
                    cw::ASSISTANT_HEAD
                });
                b.push(rest);
            }
            cw::Cleaned::Same => {
                comma(&mut b);
                b.push(l);
            }
            cw::Cleaned::Owned(o) => {
                comma(&mut b);
                b.push(o);
            }
        }
    }
    let mut t = String::with_capacity(256);
    t.push_str("],\"model\":");
    push_str(&mut t, &cfg.model);
    let mut r = cw::reasoning(cfg, req, grade);
    if omit.effort {
        r.effort = None;
    }
    if omit.thinking {
        r.thinking = None;
        r.budget = None;
    }
    if let Some(e) = r.effort {
        t.push_str(",\"output_config\":{\"effort\":");
        push_str(&mut t, e);
        t.push('}');
    }
    t.push_str(",\"stream\":true");
    if !req.system.is_empty() {
        t.push_str(",\"system\":");
        if grade {
            t.push_str(&cw::system_blocks(req.system));
        } else {
            push_str(&mut t, req.system);
        }
    }
    if let Some(mode) = r.thinking {
        t.push_str(",\"thinking\":{\"type\":");
        push_str(&mut t, mode.as_str());
        if let Some(budget) = r.budget {
            t.push_str(&format!(",\"budget_tokens\":{budget}"));
        }
        t.push('}');
    }
    let tools = tools_compact(req.tools_json).map(|t| {
        // Anthropic's own search tool where the server is Anthropic-grade (DeepSeek's
        // Anthropic endpoint and local servers have none).
        let offer = grade && !cfg.base_url.contains("deepseek.com");
        super::server_tools::claude_tools(
            t,
            offer,
            "this Claude-compatible server has no web_search tool",
        )
    });
    if let Some(tools) = tools {
        t.push_str(",\"tools\":");
        match grade.then(|| cw::tools_with_breakpoint(&tools)).flatten() {
            Some(marked) => t.push_str(&marked),
            None => t.push_str(&tools),
        }
    }
    t.push('}');
    b.push(t);
    b
}

/// The per-message hook of the Claude body: one stored line as it is sent. Only what
/// the strict rules must change is re-serialised; everything else is the stored bytes.
pub fn claude_message(line: &str, strict: bool) -> Cow<'_, str> {
    use super::claude_wire::{strict_assistant, Cleaned, ASSISTANT_HEAD};
    if let Some(o) = super::server_tools::spliced(line) {
        let cleaned = if strict {
            super::claude_wire::strict_assistant_line(&o)
        } else {
            super::claude_wire::foreign_extras_stripped(&o)
        };
        return Cow::Owned(cleaned.unwrap_or(o));
    }
    if !strict {
        return match super::claude_wire::foreign_extras_stripped(line) {
            Some(o) => Cow::Owned(o),
            None => Cow::Borrowed(line),
        };
    }
    match strict_assistant(line) {
        Cleaned::Same => Cow::Borrowed(line),
        Cleaned::Spliced(rest) => Cow::Owned(format!("{ASSISTANT_HEAD}{rest}")),
        Cleaned::Owned(o) => Cow::Owned(o),
    }
}

/// The official Anthropic API rejects what the shell format stores in assistant messages
/// (docs/providers.md): thinking blocks without a signature and empty text blocks.
pub fn is_official_anthropic(base_url: &str) -> bool {
    super::claude_wire::is_official_anthropic(base_url)
}

/// An assistant line without unsigned thinking blocks and empty text blocks (a placeholder
/// text block if nothing would remain). Other lines are returned unchanged.
pub fn strict_anthropic_line(line: &str) -> String {
    super::claude_wire::strict_assistant_line(line).unwrap_or_else(|| line.to_string())
}

#[cfg(test)]
#[path = "body_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
mod strict_tests {
    use super::*;

    #[test]
    fn official_anthropic_gets_clean_assistant_lines() {
        assert!(is_official_anthropic("https://api.anthropic.com/v1"));
        assert!(!is_official_anthropic("http://127.0.0.1:9/v1"));
        let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":""},{"type":"tool_use","id":"a","name":"Read","input":{"path": "p"}}]}"#;
        assert_eq!(
            strict_anthropic_line(l),
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Read","input":{"path":"p"}}]}"#
        );
        let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":""}]}"#;
        assert_eq!(
            strict_anthropic_line(l),
            r#"{"role":"assistant","content":[{"type":"text","text":"(no text)"}]}"#
        );
        let u = r#"{"role":"user","content":"hi"}"#;
        assert_eq!(strict_anthropic_line(u), u);
    }

    #[test]
    fn official_anthropic_enabled_thinking_gets_a_budget() {
        let mut cfg = super::tests::cfg(ProviderKind::Claude, "enabled");
        cfg.max_tokens = 4000;
        let req = Request {
            system: "s",
            messages: &[],
            tools_json: "",
            disable_thinking: false,
        };
        assert!(!build_body(ProviderKind::Claude, &cfg, &req).contains("budget_tokens"));
        cfg.base_url = "https://api.anthropic.com/v1".into();
        assert!(build_body(ProviderKind::Claude, &cfg, &req)
            .contains(r#""thinking":{"type":"enabled","budget_tokens":2000}"#));
    }
}

#[cfg(test)]
mod reasoning_tests {
    use super::*;

    fn body(kind: ProviderKind, base: &str, effort: Option<Effort>, t: Option<Thinking>) -> String {
        let mut c = super::tests::cfg(kind, "");
        c.base_url = base.into();
        if kind != ProviderKind::Claude {
            // An unknown model at api.openai.com gets no reasoning fields (models.rs).
            c.model = "gpt-5.5".into();
        } else if base.contains("anthropic.com") {
            // An unknown model gets no reasoning fields on the official host by default.
            c.model = "claude-sonnet-4-6".into();
        }
        c.effort = effort;
        c.thinking = t;
        let msgs = vec![r#"{"role":"user","content":"x"}"#.to_string()];
        let req = Request {
            system: "s",
            messages: &msgs,
            tools_json: "",
            disable_thinking: false,
        };
        build_body(kind, &c, &req)
    }

    fn has_reasoning(b: &str) -> bool {
        [
            "\"thinking\"",
            "\"output_config\"",
            "\"reasoning_effort\"",
            "\"reasoning\"",
        ]
        .iter()
        .any(|f| b.contains(f))
    }

    #[test]
    fn defaults_reach_official_apis_only() {
        for (kind, official) in [
            (ProviderKind::Claude, "https://api.anthropic.com/v1"),
            (ProviderKind::OpenAi, "https://api.openai.com/v1"),
            (ProviderKind::Responses, "https://api.openai.com/v1"),
        ] {
            assert!(is_official(kind, official));
            assert!(has_reasoning(&body(kind, official, None, None)), "{kind:?}");
            let local = "http://127.0.0.1:4000/v1";
            assert!(!is_official(kind, local));
            assert!(!has_reasoning(&body(kind, local, None, None)), "{kind:?}");
            // Asked for: sent anywhere; disabled: sent nowhere.
            assert!(has_reasoning(&body(kind, local, Some(Effort::Low), None)));
            assert!(has_reasoning(&body(
                kind,
                local,
                None,
                Some(Thinking::Adaptive)
            )));
            assert!(!has_reasoning(&body(
                kind,
                local,
                Some(Effort::Low),
                Some(Thinking::Disabled)
            )));
            assert!(!has_reasoning(&body(
                kind,
                official,
                None,
                Some(Thinking::Disabled)
            )));
        }
        assert!(
            body(ProviderKind::Claude, "http://h/v1", Some(Effort::Low), None)
                .contains(r#""output_config":{"effort":"low"}"#)
        );
    }
}

#[cfg(test)]
mod anthropic_grade_tests {
    use super::*;

    #[test]
    fn official_host_golden_with_signatures_and_breakpoints() {
        let mut c = super::tests::cfg(ProviderKind::Claude, "");
        c.base_url = "https://api.anthropic.com/v1".into();
        c.model = "claude-sonnet-4-6".into();
        c.effort = None;
        c.max_tokens = 32000;
        let msgs: Vec<String> = vec![
            r#"{"role":"user","content":"hi"}"#.into(),
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"old"},{"type":"text","text":"ok"}]}"#.into(),
            r#"{"role":"user","content":"read a"}"#.into(),
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"S1"},{"type":"redacted_thinking","data":"D1"},{"type":"text","text":""},{"type":"tool_use","id":"t1","name":"Read","input":{"path":"a"}}]}"#.into(),
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"data"}]}"#.into(),
        ];
        let req = Request {
            system: "sys",
            messages: &msgs,
            tools_json: super::tests::TOOLS,
            disable_thinking: false,
        };
        let want = concat!(
            r#"{"max_tokens":32000,"messages":[{"role":"user","content":"hi"},"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"ok","cache_control":{"type":"ephemeral"}}]},"#,
            r#"{"role":"user","content":"read a"},"#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"S1"},{"type":"redacted_thinking","data":"D1"},{"type":"tool_use","id":"t1","name":"Read","input":{"path":"a"}}]},"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"data","cache_control":{"type":"ephemeral"}}]}],"#,
            r#""model":"claude-sonnet-4-6","output_config":{"effort":"high"},"stream":true,"#,
            r#""system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],"#,
            r#""thinking":{"type":"adaptive"},"#,
            r#""tools":[{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}}},"cache_control":{"type":"ephemeral"}}]}"#
        );
        assert_eq!(build_body(ProviderKind::Claude, &c, &req), want);
    }
}
