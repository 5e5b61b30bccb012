//! `bash-agent sessions rm NAME | prune --sub-agents [--older-than 30d] [--dry-run] | show NAME`.
use crate::cli::{Opts, SessionsCmd};
use crate::error::{Error, Result};
use crate::session::stats::Stats;
use crate::session::store::last_activity;
use crate::sessions::manage::{last_turns, SHOW_TURNS};
use crate::sessions::manage::{
    pid_text, remove_session, running_pid, session_dir, DEFAULT_PRUNE_AGE,
};
use crate::sessions::show::{clip, indent};
use crate::util::fsx::read_lossy;
use serde_json::json;
use std::path::Path;

/// `bash-agent sessions …`.
pub fn cmd_sessions(o: &Opts, action: &SessionsCmd) -> Result {
    let project = crate::session::select::project_dir()?;
    if let SessionsCmd::Rm { name } | SessionsCmd::Show { name } = action {
        if let Err(e) = crate::session::paths::validate_session_name(name) {
            return Err(Error::usage(&e));
        }
    }
    match action {
        SessionsCmd::Rm { name } => cmd_rm(o, &project, name),
        SessionsCmd::Prune {
            sub_agents,
            older_than,
            dry_run,
        } => cmd_prune(o, &project, *sub_agents, older_than.as_deref(), *dry_run),
        SessionsCmd::Show { name } => cmd_show(o, &project, name),
    }
}

fn cmd_rm(o: &Opts, project: &Path, name: &str) -> Result {
    let dir = match session_dir(project, name) {
        Ok(d) => d,
        Err(e) => {
            return Err(Error::runtime(&e));
        }
    };
    match remove_session(&dir, name) {
        Ok(()) => {
            if o.json {
                println!(
                    "{}",
                    json!({"removed": name, "path": dir.to_string_lossy()})
                );
            } else {
                println!("Removed session {name} ({})", dir.display());
            }
            Ok(())
        }
        Err(e) => Err(Error::runtime(&e)),
    }
}

fn cmd_prune(
    o: &Opts,
    project: &Path,
    sub_agents: bool,
    older_than: Option<&str>,
    dry_run: bool,
) -> Result {
    if !sub_agents {
        return Err(Error::usage(
            "sessions prune needs --sub-agents (only sub-agent sessions are pruned)",
        ));
    }
    let age_text = older_than.unwrap_or(DEFAULT_PRUNE_AGE);
    let Some(age) = crate::util::time::parse_duration(age_text) else {
        return Err(Error::usage(format!(
            "Invalid --older-than: {age_text} (use e.g. 30d, 12h)"
        )));
    };
    let cutoff = crate::util::time::now_secs() - age;
    let mut names: Vec<String> = std::fs::read_dir(project)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("sub_"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut removed = Vec::new();
    let mut skipped = Vec::new();
    for name in names {
        let dir = project.join(&name);
        let act = last_activity(&dir);
        if act >= cutoff {
            continue;
        }
        let when = crate::util::time::local_minute(act);
        if let Some(pid) = running_pid(&dir) {
            let reason = format!("running ({})", pid_text(pid));
            if !o.json {
                println!("skipped {name}: {reason}");
            }
            skipped.push(json!({"name": name, "reason": reason}));
            continue;
        }
        if dry_run {
            if !o.json {
                println!("would remove {name} (last activity {when})");
            }
            removed.push(json!({"name": name, "last_activity": when}));
            continue;
        }
        match remove_session(&dir, &name) {
            Ok(()) => {
                if !o.json {
                    println!("removed {name} (last activity {when})");
                }
                removed.push(json!({"name": name, "last_activity": when}));
            }
            Err(e) => {
                if !o.json {
                    println!("skipped {name}: {e}");
                }
                skipped.push(json!({"name": name, "reason": e}));
            }
        }
    }
    if o.json {
        println!(
            "{}",
            json!({"dry_run": dry_run, "older_than": age_text, "removed": removed, "skipped": skipped})
        );
    } else if removed.is_empty() && skipped.is_empty() {
        println!("No sub-agent sessions older than {age_text}.");
    } else {
        let verb = if dry_run {
            "would be removed"
        } else {
            "removed"
        };
        println!("{} sub-agent session(s) {verb}.", removed.len());
    }
    Ok(())
}

pub fn cmd_show(o: &Opts, project: &Path, name: &str) -> Result {
    let dir = match session_dir(project, name) {
        Ok(d) => d,
        Err(e) => {
            return Err(Error::runtime(&e));
        }
    };
    let act = crate::session::store::last_activity(&dir);
    let pid = running_pid(&dir);
    let stats = Stats::load(&dir.join("stats.json"));
    let plan = read_lossy(&dir.join("plan.md"));
    let summary = read_lossy(&dir.join("summary.txt"));
    let turns = last_turns(&dir.join("events.jsonl"), SHOW_TURNS);
    let (entries, source, _) = crate::usage::report::session_entries(&dir, None);
    let ov = crate::usage::prices::Overrides::load();
    let mut cost = 0.0;
    let mut priced = 0;
    for e in &entries {
        if let Some(p) = ov.price(&e.model) {
            cost += crate::usage::prices::cost(&p, &e.usage());
            priced += 1;
        }
    }
    let cost_v = (priced > 0).then_some((cost * 1e6).round() / 1e6);
    if o.json {
        let v = json!({
            "name": name,
            "path": dir.to_string_lossy(),
            "last_activity": crate::util::time::rfc3339_local(act),
            "running_pid": pid,
            "stats": serde_json::from_str::<serde_json::Value>(stats.to_line().as_str()).unwrap_or_default(),
            "usage": {"source": source, "calls": entries.len(), "cost_usd": cost_v},
            "plan": plan,
            "summary": summary,
            "last_turns": turns.iter().map(|t| json!({
                "turn": t.number, "input": t.input, "answer": t.answer, "tools": t.tools, "errors": t.errors
            })).collect::<Vec<_>>(),
        });
        println!("{v}");
        return Ok(());
    }
    let n = crate::usage::report::fmt_n;
    let mut s = String::new();
    s.push_str(&format!("session   {name}\npath      {}\n", dir.display()));
    s.push_str(&format!(
        "activity  {}\n",
        crate::util::time::local_minute(act)
    ));
    s.push_str(&format!(
        "running   {}\n",
        pid.map_or("no".to_string(), |p| format!(
            "yes ({})",
            crate::sessions::manage::pid_text(p)
        ))
    ));
    s.push_str(&format!(
        "turns     {}\nrequests  {} agent, {} compact, {} sub-agent\ntokens    in {}, out {}, cache read {}, cache write {}\ncontext   {} tokens\n",
        stats.current_turn_count,
        stats.agent_request_count,
        stats.compact_request_count,
        stats.sub_agent_request_count,
        n(stats.total_input_tokens),
        n(stats.total_output_tokens),
        n(stats.total_cache_read_tokens),
        n(stats.total_cache_creation_tokens),
        n(stats.current_context_tokens),
    ));
    s.push_str(&format!(
        "cost      {}\n",
        cost_v.map_or("-".to_string(), |c| format!(
            "${c:.4} ({} calls, from {source})",
            entries.len()
        ))
    ));
    for (title, body) in [("plan.md", &plan), ("summary.txt", &summary)] {
        if body.trim().is_empty() {
            s.push_str(&format!("\n{title}: (empty)\n"));
        } else {
            s.push_str(&format!("\n{title}:\n{}", indent(&clip(body, 2000))));
        }
    }
    if turns.is_empty() {
        s.push_str("\nNo turns yet.\n");
    } else {
        s.push_str(&format!("\nLast {} turn(s):\n", turns.len()));
        for t in &turns {
            s.push_str(&format!(
                "\n[{}] > {}\n",
                t.number,
                clip(&t.input, 400).replace('\n', "\n  ")
            ));
            if !t.tools.is_empty() {
                s.push_str(&format!("  [tools: {}]\n", t.tools.join(", ")));
            }
            if !t.answer.trim().is_empty() {
                s.push_str(&indent(&clip(&t.answer, 800)));
            }
            for e in &t.errors {
                s.push_str(&format!("  [error: {}]\n", clip(e, 300)));
            }
        }
    }
    print!("{s}");
    Ok(())
}
