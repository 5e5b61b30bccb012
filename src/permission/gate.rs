//! A run's permission state (mode, rules, rules added with "always") and the question
//! channel to the line editor. A gate without an [`AskSlot`] is headless: it never blocks —
//! a call that would ask is refused with a tool result that says how to allow it.
use super::ask::log;
pub use super::slot::AskSlot;
use super::{decide, refusal_text, split_rules, Answer, Facts, PermMode, Rule, RuleKind, Verdict};
use crate::util::cancel::Cancel;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

struct State {
    mode: PermMode,
    rules: Vec<Rule>,
    /// A custom command's `allowed-tools` for its one turn (allow rules; deny rules and
    /// the sandbox still win).
    turn_rules: Vec<Rule>,
    /// The mode chosen when the plan was approved (PlanConfirm's question).
    after_plan: Option<PermMode>,
}

/// The permission gate of one run.
pub struct Gate {
    state: Mutex<State>,
    slot: Option<AskSlot>,
    home: PathBuf,
}

/// Keeps an "always" answer's rules where the person chose (see [`CallEnv::save_rules`]).
pub type SaveRules<'a> = dyn Fn(super::save::SaveTo, &[String]) -> Result<String, String> + 'a;

/// What a check needs from the run.
pub struct CallEnv<'a> {
    pub cwd: &'a Path,
    pub plan_draft: &'a Path,
    pub projects_root: &'a Path,
    pub cancel: &'a Cancel,
    /// Show text to the person (the question).
    pub print: &'a dyn Fn(&str),
    /// Keep the rules an "always" answer adds where the person chose: Ok is how the
    /// confirmation goes on (" for this session", "; saved in FILE"), Err why it was not
    /// saved. The caller knows where the settings files are and the folder's trust.
    pub save_rules: &'a SaveRules<'a>,
    /// The project folder's stored trust (how the menu's project choice reads).
    pub project_trust: &'a dyn Fn() -> super::menu::ProjectTrust,
    /// What the call would change (an Edit's or Write's diff), shown above the question;
    /// made only when a question is asked ("" for none).
    pub preview: &'a dyn Fn() -> String,
    /// Append one events.jsonl line.
    pub log: &'a dyn Fn(&str),
    /// What a PreToolUse hook said of this call: `Allow` skips a question (deny rules still
    /// refuse), `Ask` puts one where the rules would allow (Claude Code's semantics).
    pub hook: Option<RuleKind>,
    /// A PermissionRequest hook, run where a question would be put (or refused headless):
    /// Some(Ok) allows, Some(Err(why)) refuses, None leaves it to the person.
    pub on_ask: &'a dyn Fn(&str) -> Option<Result<(), String>>,
}

/// The mode from `BASH_AGENT_PERMISSION_MODE` when the flag is absent.
pub const MODE_ENV: &str = "BASH_AGENT_PERMISSION_MODE";

impl Gate {
    /// `slot` is the editor's question channel (interactive on a terminal), None when
    /// headless. Without an explicit mode, interactive runs use `default`, headless `bypass`.
    pub fn new(mode: Option<PermMode>, rules: Vec<Rule>, slot: Option<AskSlot>) -> Gate {
        let mode = mode.unwrap_or(if slot.is_some() {
            PermMode::Default
        } else {
            PermMode::Bypass
        });
        if let Some(s) = &slot {
            s.set_mode(mode);
        }
        Gate {
            state: Mutex::new(State {
                mode,
                rules,
                turn_rules: Vec::new(),
                after_plan: None,
            }),
            slot,
            home: std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default(),
        }
    }

    /// The headless bypass gate (tests, `compact`).
    pub fn bypass() -> Gate {
        Gate::new(Some(PermMode::Bypass), Vec::new(), None)
    }

    /// Parse `--permission-mode` (or the environment) and the rule flags.
    pub fn resolve(
        mode: Option<&str>,
        allow: &[String],
        ask: &[String],
        deny: &[String],
        cwd: &Path,
    ) -> Result<(Option<PermMode>, Vec<Rule>), String> {
        let env = std::env::var(MODE_ENV)
            .ok()
            .filter(|s| !s.trim().is_empty());
        let mode = match mode.map(str::to_string).or(env) {
            Some(m) => Some(PermMode::parse(&m).ok_or_else(|| {
                format!("unknown permission mode {m:?} (default, accept-edits, plan, bypass)")
            })?),
            None => None,
        };
        let mut rules = Vec::new();
        for (kind, list) in [
            (RuleKind::Deny, deny),
            (RuleKind::Ask, ask),
            (RuleKind::Allow, allow),
        ] {
            for r in list.iter().flat_map(|r| split_rules(r)) {
                rules.push(Rule::parse(kind, &r, cwd)?);
            }
        }
        Ok((mode, rules))
    }

    /// The mode and every rule in force now (a custom command's turn rules included).
    pub(super) fn snapshot(&self) -> (PermMode, Vec<Rule>) {
        let mode = self.mode();
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let rules = [st.rules.as_slice(), st.turn_rules.as_slice()].concat();
        (mode, rules)
    }

    pub(super) fn home(&self) -> &Path {
        &self.home
    }

    /// The mode in force: the editor may have changed it (Shift+Tab) through the slot.
    pub fn mode(&self) -> PermMode {
        match self.slot.as_ref().and_then(AskSlot::mode) {
            Some(m) => m,
            None => self.state.lock().unwrap_or_else(|p| p.into_inner()).mode,
        }
    }

    /// Allow rules for the next turn only (a custom command's `allowed-tools`); an empty
    /// list lifts them.
    pub fn set_turn_rules(&self, rules: Vec<Rule>) {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .turn_rules = rules;
    }

    pub fn set_mode(&self, m: PermMode) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).mode = m;
        if let Some(s) = &self.slot {
            s.set_mode(m);
        }
    }

    /// Whether questions can be asked (interactive on a terminal).
    pub fn interactive(&self) -> bool {
        self.slot.is_some()
    }

    /// Show `text` and wait for the next line the person submits (None: headless, or
    /// interrupted): for other questions during a tool call (an MCP elicitation).
    pub fn ask_line(&self, print: &dyn Fn(&str), text: &str, cancel: &Cancel) -> Option<String> {
        self.slot.as_ref()?.ask_line(print, text, cancel)
    }

    /// `/permissions`: the mode and the rules.
    pub fn describe(&self) -> String {
        let mode = self.mode();
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut s = format!(
            "permission mode  {}{}\n",
            mode.name(),
            if self.slot.is_some() {
                ""
            } else {
                " (headless: calls that would ask are refused)"
            }
        );
        if st.rules.is_empty() {
            s.push_str("rules            none\n");
        }
        for r in &st.rules {
            let k = match r.kind {
                RuleKind::Allow => "allow",
                RuleKind::Ask => "ask",
                RuleKind::Deny => "deny",
            };
            s.push_str(&format!("{k:<6} {}\n", r.text));
        }
        s
    }

    /// Decide (and, if needed, ask about) one call. Err is the refusal for the model.
    pub fn check(
        &self,
        env: &CallEnv,
        tool: &str,
        input: &serde_json::Value,
    ) -> Result<(), String> {
        let facts = facts(env, &self.home, tool, input);
        let mode = self.mode();
        // The person sees the plan before plan mode ends (headless runs confirm as before).
        if tool == "PlanConfirm" && mode == PermMode::Plan {
            if let Some(slot) = &self.slot {
                let next = super::ask::plan(slot, env)?;
                self.state
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .after_plan = Some(next);
                return Ok(());
            }
        }
        let verdict = {
            let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if st.turn_rules.is_empty() {
                decide(mode, &st.rules, &facts, &self.home)
            } else {
                let all = [st.rules.as_slice(), st.turn_rules.as_slice()].concat();
                decide(mode, &all, &facts, &self.home)
            }
        };
        let label = label(&facts);
        let verdict = match super::hooked::apply(env, verdict, mode, &label) {
            Ok(v) => v,
            Err(decided) => return decided,
        };
        match verdict {
            Verdict::Allow => Ok(()),
            Verdict::Deny(why) => {
                log(env, &label, mode, "denied", None, &why, None);
                Err(refusal_text(mode, &why, "", None))
            }
            Verdict::Ask { why, suggest } => {
                let proposed = super::save::proposals(&facts, &suggest, &self.home);
                let rules_text = proposed.join(", ");
                let Some(slot) = &self.slot else {
                    let why = format!("{why}, and this run cannot ask (headless)");
                    log(env, &label, mode, "refused", None, &why, None);
                    return Err(refusal_text(mode, &why, &rules_text, None));
                };
                let diff = (env.preview)();
                if !diff.is_empty() {
                    (env.print)(&format!("{}\n", diff.trim_end()));
                }
                let header = format!(
                    "Allow {}? ({why})\n  \"don't ask again\" adds: {}\n",
                    crate::util::shown::shown(&label),
                    crate::util::shown::shown(&rules_text)
                );
                let choices = super::menu::choices((env.project_trust)());
                let answer = super::ask::ask(slot, env, &header, choices);
                match answer {
                    Some(Answer::Yes) => {
                        log(env, &label, mode, "allowed", Some("yes"), &why, None);
                        (env.print)("Allowed once.\n");
                        Ok(())
                    }
                    Some(Answer::Always(to)) => {
                        let _ = self.add_rules(RuleKind::Allow, env.cwd, &proposed);
                        log(
                            env,
                            &label,
                            mode,
                            "allowed",
                            Some("always"),
                            &why,
                            Some(&rules_text),
                        );
                        let saved = match (env.save_rules)(to, &proposed) {
                            Ok(how) => how,
                            Err(e) => format!(" for this session (not saved: {e})"),
                        };
                        (env.print)(&format!("Allowed; added {rules_text}{saved}.\n"));
                        Ok(())
                    }
                    Some(Answer::No(reason)) => {
                        log(env, &label, mode, "refused", Some("no"), &reason, None);
                        (env.print)("Refused; the agent is told why.\n");
                        Err(refusal_text(mode, &why, &rules_text, Some(&reason)))
                    }
                    None => {
                        log(env, &label, mode, "refused", None, "interrupted", None);
                        Err(refusal_text(mode, &why, &rules_text, Some("interrupted")))
                    }
                }
            }
        }
    }

    /// Add rules of `kind` for the rest of the run, each once (an "always" answer; a
    /// PermissionRequest hook's `updatedPermissions`). Err names a rule that does not parse.
    pub fn add_rules(&self, kind: RuleKind, cwd: &Path, texts: &[String]) -> Result<(), String> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        for t in texts {
            if st.rules.iter().any(|r| r.kind == kind && r.text == *t) {
                continue;
            }
            st.rules.push(Rule::parse(kind, t, cwd)?);
        }
        Ok(())
    }

    /// After a call ran: a confirmed plan ends plan mode (interactive runs go on in
    /// `default`, headless ones in `bypass`).
    pub fn after(&self, tool: &str, ok: bool) {
        if tool == "PlanConfirm" && ok && self.mode() == PermMode::Plan {
            let chosen = self
                .state
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .after_plan
                .take();
            self.set_mode(chosen.unwrap_or(if self.slot.is_some() {
                PermMode::Default
            } else {
                PermMode::Bypass
            }));
        }
    }
}

/// `Bash(rm -rf build)`, `Edit(src/a.rs)`, `mcp__x__y`.
fn label(f: &Facts) -> String {
    if let Some(c) = &f.command {
        let one: String = c.split_whitespace().collect::<Vec<_>>().join(" ");
        let short: String = one.chars().take(120).collect();
        return format!("{}({short})", f.tool);
    }
    if let Some(u) = &f.url {
        return format!("{}({})", f.tool, u.chars().take(200).collect::<String>());
    }
    match (&f.rel_path, &f.path) {
        (Some(r), _) => format!("{}({r})", f.tool),
        (None, Some(p)) => format!("{}({})", f.tool, p.display()),
        _ => f.tool.clone(),
    }
}

/// Lexical normalisation (`.` and `..` removed), no filesystem access.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn facts(env: &CallEnv, home: &Path, tool: &str, input: &serde_json::Value) -> Facts {
    let mut f = Facts {
        tool: tool.to_string(),
        ..Facts::default()
    };
    let s = |k: &str| input.get(k).and_then(|v| v.as_str()).map(str::to_string);
    if tool == "Bash" {
        let c = s("command").unwrap_or_default();
        return super::bash_facts(&c, env.cwd, env.projects_root);
    }
    if tool == "WebFetch" {
        return super::hops::web_facts(&s("url").unwrap_or_default());
    }
    let target = match tool {
        "Read" | "Write" | "Edit" => s("path"),
        "Glob" | "Grep" => Some(s("path").unwrap_or_else(|| ".".into())),
        _ => None,
    };
    if let Some(t) = target {
        let p = if t == "~" {
            home.to_path_buf()
        } else if let Some(r) = t.strip_prefix("~/") {
            home.join(r)
        } else if t.starts_with('/') {
            PathBuf::from(&t)
        } else {
            env.cwd.join(&t)
        };
        let p = normalise(&p);
        // A link in the workspace to `~/.bashrc` is not in the workspace.
        let real = crate::tools::policy::physical(&p);
        f.in_workspace = p.starts_with(env.cwd) && real.starts_with(env.cwd);
        f.path_real = (real != p).then_some(real);
        if f.in_workspace {
            f.rel_path = p
                .strip_prefix(env.cwd)
                .ok()
                .map(|r| r.display().to_string())
                .filter(|r| !r.is_empty());
        }
        f.plan_draft = p == normalise(env.plan_draft);
        f.path = Some(p);
    }
    f
}

impl Gate {
    /// Flags that give a sub-agent this run's current mode and rules.
    pub fn child_args(&self) -> Vec<String> {
        let mode = self.mode();
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut a = vec!["--permission-mode".to_string(), mode.name().to_string()];
        for r in &st.rules {
            let flag = match r.kind {
                RuleKind::Allow => "--allow",
                RuleKind::Ask => "--ask",
                RuleKind::Deny => "--deny",
            };
            a.push(flag.into());
            a.push(r.text.clone());
        }
        a
    }
}
