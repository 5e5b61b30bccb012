//! `/model`: without a name, a numbered picker of the provider's current models (from the
//! model table, each with its aliases), the next line picking one by number or name;
//! `/model NAME` switches at once (an alias such as `sonnet` resolves first).
use crate::agent::context::AgentCtx;
use crate::provider::models::{self, Vendor};
use crate::provider::ProviderKind;

/// The vendor whose models a run of this provider and base URL can use.
fn vendor(ctx: &AgentCtx) -> Vendor {
    let p = &ctx.cfg.provider;
    // DeepSeek's own host, or a gateway named after it; by the parsed host, so a path or
    // a password holding the word does not count.
    let host = crate::provider::hosts::host(&p.base_url).unwrap_or_default();
    if host.contains("deepseek") {
        Vendor::DeepSeek
    } else if p.kind == ProviderKind::Claude {
        Vendor::Anthropic
    } else {
        Vendor::OpenAi
    }
}

/// The picker's list and its text: the current models, the run's own model first when
/// the table does not list it.
pub fn list(ctx: &AgentCtx) -> (Vec<String>, String) {
    let mut names: Vec<String> = models::current_models(vendor(ctx))
        .into_iter()
        .map(str::to_string)
        .collect();
    let now = &ctx.cfg.provider.model;
    if !names.contains(now) {
        names.insert(0, now.clone());
    }
    let mut s = format!(
        "model     {now} ({})\nModels (this session only):\n",
        ctx.cfg.provider.kind.name()
    );
    for (i, m) in names.iter().enumerate() {
        let al: Vec<&str> = models::aliases()
            .filter(|(_, to)| to == m)
            .map(|(a, _)| a)
            .collect();
        let mark = if m == now { "  (current)" } else { "" };
        let al = if al.is_empty() {
            String::new()
        } else {
            format!("  alias {}", al.join(", "))
        };
        s.push_str(&format!("  {:>2}. {m}{al}{mark}\n", i + 1));
    }
    s.push_str("Type a number or a model name to switch (anything else cancels).\n");
    (names, s)
}

/// The model `answer` picks from `names`: a number from 1, a listed name or an alias.
pub fn pick(names: &[String], answer: &str) -> Option<String> {
    if let Ok(n) = answer.parse::<usize>() {
        return n.checked_sub(1).and_then(|i| names.get(i)).cloned();
    }
    let m = models::resolve_alias(answer);
    names.contains(&m).then_some(m)
}

#[cfg(test)]
mod tests {
    use super::pick;

    #[test]
    fn picks_by_number_name_or_alias() {
        let l = vec!["a-model".to_string(), "b-model".to_string()];
        assert_eq!(pick(&l, "2").as_deref(), Some("b-model"));
        assert_eq!(pick(&l, "a-model").as_deref(), Some("a-model"));
        assert_eq!(pick(&l, "9"), None);
        assert_eq!(pick(&l, "nope"), None);
    }
}
