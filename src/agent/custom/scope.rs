//! What a custom command narrows for its one turn (`allowed-tools`, `model`) and what a
//! custom sub-agent narrows for its whole run (`tools`, its instructions). The turn reads
//! it in three places: the tools offered to the model, the check before a tool runs (a
//! tool outside the set is refused even if the model names it), and the provider config.
use crate::provider::ProviderConfig;
use std::borrow::Cow;
use std::sync::Mutex;

#[derive(Debug, Clone, Default)]
struct Inner {
    /// A custom sub-agent's tools (None: all).
    run_tools: Option<Vec<String>>,
    /// A custom sub-agent's name and instructions.
    run_prompt: Option<(String, String)>,
    /// A custom command's tools for this turn (None: all).
    turn_tools: Option<Vec<String>>,
    turn_model: Option<String>,
    /// Why the turn is narrowed (`/review`), for the refusal.
    turn_source: String,
    /// Tools taken away (Claude Code's `disallowedTools` / `disallowed-tools`), for the
    /// agent's run and for the command's turn.
    run_denied: Vec<String>,
    turn_denied: Vec<String>,
}

/// The narrowing of one run; empty by default (nothing changes).
#[derive(Debug, Default)]
pub struct Scope(Mutex<Inner>);

fn covers(list: &[String], tool: &str) -> bool {
    list.iter().any(|t| {
        t == tool
            || (t.starts_with("mcp__") && tool.starts_with(t) && tool[t.len()..].starts_with("__"))
    })
}

impl Scope {
    fn get(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A custom sub-agent: these tools and instructions for the whole run.
    pub fn set_agent(&self, name: &str, tools: Option<Vec<String>>, prompt: &str) {
        let mut g = self.get();
        g.run_tools = tools;
        g.run_prompt = Some((name.to_string(), prompt.to_string()));
    }

    /// A custom command's turn: `tools` (None: all) and `model` until [`Scope::end_turn`].
    pub fn begin_turn(&self, source: &str, tools: Option<Vec<String>>, model: Option<String>) {
        let mut g = self.get();
        g.turn_tools = tools;
        g.turn_model = model;
        g.turn_source = source.to_string();
    }

    /// Tools the agent's run (`turn`: false) or the command's turn may not use.
    pub fn deny(&self, turn: bool, tools: Vec<String>) {
        let mut g = self.get();
        if turn {
            g.turn_denied = tools;
        } else {
            g.run_denied = tools;
        }
    }

    pub fn end_turn(&self) {
        let mut g = self.get();
        g.turn_denied.clear();
        g.turn_tools = None;
        g.turn_model = None;
        g.turn_source.clear();
    }

    /// Whether `tool` may run now; Err is the refusal for the model.
    pub fn allows(&self, tool: &str) -> Result<(), String> {
        let g = self.get();
        if covers(&g.run_denied, tool) || covers(&g.turn_denied, tool) {
            return Err(format!(
                "the tool {tool} is not available here: the {} disallows it",
                if covers(&g.turn_denied, tool) {
                    format!("{} command", g.turn_source)
                } else {
                    "agent".to_string()
                }
            ));
        }
        if let Some(t) = &g.run_tools {
            if !covers(t, tool) {
                let who = g.run_prompt.as_ref().map_or("", |(n, _)| n.as_str());
                return Err(format!(
                    "the tool {tool} is not available to the agent {who} (its tools: {})",
                    t.join(", ")
                ));
            }
        }
        if let Some(t) = &g.turn_tools {
            if !covers(t, tool) {
                return Err(format!(
                    "the tool {tool} is not available in this {} turn (its allowed-tools: {})",
                    g.turn_source,
                    t.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Whether the agent's or the command's list names `tool`.
    fn names(&self, tool: &str) -> bool {
        let g = self.get();
        let has = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| l.iter().any(|t| t == tool));
        has(&g.run_tools) || has(&g.turn_tools)
    }

    fn narrowed(&self) -> bool {
        let g = self.get();
        g.run_tools.is_some()
            || g.turn_tools.is_some()
            || !g.run_denied.is_empty()
            || !g.turn_denied.is_empty()
    }

    /// The request's tools array without the tools outside the set.
    pub fn tools_json<'a>(&self, all: Cow<'a, str>) -> Cow<'a, str> {
        if !self.narrowed() {
            return all;
        }
        let Ok(serde_json::Value::Array(items)) = serde_json::from_str(&all) else {
            return all;
        };
        let mut kept: Vec<serde_json::Value> = items
            .into_iter()
            .filter(|t| {
                t.get("name")
                    .and_then(|n| n.as_str())
                    .is_some_and(|n| self.allows(n).is_ok())
            })
            .collect();
        // An agent or command that names WebSearch gets the provider's own search tool
        // (provider/server_tools.rs turns the marker into it, or drops it with a warning).
        if self.names("WebSearch") && self.allows("WebSearch").is_ok() {
            kept.push(crate::provider::server_tools::marker());
        }
        Cow::Owned(serde_json::Value::Array(kept).to_string())
    }

    /// The provider config of this turn (another model for a command with `model`).
    pub fn provider<'a>(&self, p: &'a ProviderConfig) -> Cow<'a, ProviderConfig> {
        match &self.get().turn_model {
            Some(m) if *m != p.model => {
                let mut c = p.clone();
                c.model = m.clone();
                // The other model's max output bounds max_tokens (the API refuses more).
                c.max_tokens = crate::provider::models::max_tokens_for(m, Some(c.max_tokens));
                Cow::Owned(c)
            }
            _ => Cow::Borrowed(p),
        }
    }

    /// A custom sub-agent's instructions as the prompt's last section ("" for others).
    pub fn prompt_section(&self) -> String {
        match &self.get().run_prompt {
            Some((name, text)) if !text.is_empty() => format!(
                "\n<agent-instructions name={}>\n{text}\n</agent-instructions>",
                crate::util::jsonl::quote(name)
            ),
            _ => String::new(),
        }
    }
}

/// The tools an `allowed-tools` list offers: each rule's tool (`Bash(git:*)` → Bash);
/// an `Edit` rule covers Write too and a `Read` rule Glob and Grep, as the permission
/// rules do.
pub fn tools_of_rules(rules: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rules {
        let tool = r.split('(').next().unwrap_or(r).trim();
        let extra: &[&str] = match tool {
            "Edit" => &["Write"],
            "Read" => &["Glob", "Grep"],
            _ => &[],
        };
        for t in std::iter::once(tool).chain(extra.iter().copied()) {
            if !out.iter().any(|o| o == t) {
                out.push(t.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_filters_tools_and_refuses_others() {
        let s = Scope::default();
        let all = Cow::Borrowed(r#"[{"name":"Read"},{"name":"Bash"},{"name":"mcp__fs__ls"}]"#);
        assert!(matches!(s.tools_json(all.clone()), Cow::Borrowed(_)));
        s.begin_turn(
            "/x",
            Some(tools_of_rules(&["Bash(git:*)".into(), "mcp__fs".into()])),
            None,
        );
        assert_eq!(
            s.tools_json(all.clone()),
            r#"[{"name":"Bash"},{"name":"mcp__fs__ls"}]"#
        );
        assert!(s.allows("Read").unwrap_err().contains("/x turn"));
        s.end_turn();
        s.begin_turn("/y", None, None);
        s.deny(true, vec!["Bash".into()]);
        assert_eq!(
            s.tools_json(all.clone()),
            r#"[{"name":"Read"},{"name":"mcp__fs__ls"}]"#
        );
        assert!(s
            .allows("Bash")
            .unwrap_err()
            .contains("the /y command disallows it"));
        s.end_turn();
        assert!(s.allows("Bash").is_ok());
        s.set_agent("rev", Some(vec!["Read".into()]), "Be brief.");
        assert_eq!(s.tools_json(all.clone()), r#"[{"name":"Read"}]"#);
        s.set_agent("web", Some(vec!["Read".into(), "WebSearch".into()]), "");
        assert_eq!(
            s.tools_json(all),
            r#"[{"name":"Read"},{"name":"WebSearch","server_tool":"web_search"}]"#
        );
        s.set_agent("rev", Some(vec!["Read".into()]), "Be brief.");
        assert!(s.allows("Bash").unwrap_err().contains("agent rev"));
        assert!(s
            .prompt_section()
            .contains("<agent-instructions name=\"rev\">\nBe brief.\n"));
        assert_eq!(
            tools_of_rules(&["Edit(src/**)".into()]),
            vec!["Edit", "Write"]
        );
    }
}
