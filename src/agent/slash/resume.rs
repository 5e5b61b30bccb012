//! `/resume`: a numbered list of this project's other sessions (newest first); the next
//! line typed picks one by number and the run switches to it as `--session` would.
//! `/resume N` or `/resume NAME` switches at once.
use crate::agent::context::AgentCtx;

pub enum Outcome {
    /// Switch to this session now.
    Switch(String),
    /// The list is shown; the next input picks from these names.
    Picking(Vec<String>),
    /// A message was shown (nothing to pick, a bad name).
    Shown,
}

/// The session `answer` names in `list` (a number from 1, or a name in it).
pub fn pick(list: &[String], answer: &str) -> Option<String> {
    if let Ok(n) = answer.parse::<usize>() {
        return n.checked_sub(1).and_then(|i| list.get(i)).cloned();
    }
    list.iter().find(|n| *n == answer).cloned()
}

pub fn start(ctx: &AgentCtx, arg: Option<&str>) -> Outcome {
    let list = super::pick::rows(&ctx.session.project_dir(), Some(&ctx.session.id));
    let names: Vec<String> = list.iter().map(|e| e.name.clone()).collect();
    if let Some(a) = arg {
        if let Some(n) = pick(&names, a) {
            return Outcome::Switch(n);
        }
        // Any existing session by name, listed or not.
        if crate::session::paths::validate_session_name(a).is_ok()
            && ctx.session.project_dir().join(a).is_dir()
            && a != ctx.session.id
        {
            return Outcome::Switch(a.to_string());
        }
        ctx.out
            .print(&format!("No session {a} in this project (see /resume).\n"));
        return Outcome::Shown;
    }
    if list.is_empty() {
        ctx.out.print("No other sessions in this project.\n");
        return Outcome::Shown;
    }
    let mut s = String::from("Sessions of this project (newest first):\n");
    s.push_str(&super::pick::render(&list));
    s.push_str("Type a number to resume that session (anything else cancels).\n");
    ctx.out.print(&s);
    Outcome::Picking(names)
}

#[cfg(test)]
mod tests {
    use super::pick;

    #[test]
    fn picks_by_number_or_name() {
        let l = vec!["a".to_string(), "b".to_string()];
        assert_eq!(pick(&l, "2").as_deref(), Some("b"));
        assert_eq!(pick(&l, "0"), None);
        assert_eq!(pick(&l, "3"), None);
        assert_eq!(pick(&l, "a").as_deref(), Some("a"));
        assert_eq!(pick(&l, "hello"), None);
    }
}
