//! `bash-agent sessions show NAME [--json]`: meta (path, last activity, running pid),
//! stats.json, usage and cost, plan.md, summary.txt and the last turns.
use super::sessions::{last_turns, running_pid, session_dir, SHOW_TURNS};
use crate::cli::Opts;
use crate::session::stats::Stats;
use crate::util::fsx::read_lossy;
use serde_json::json;
use std::path::Path;

fn clip(s: &str, max: usize) -> String {
    let t = s.trim();
    if t.chars().count() <= max {
        return t.to_string();
    }
    let cut: String = t.chars().take(max).collect();
    format!("{cut}…")
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}

pub fn cmd_show(o: &Opts, project: &Path, name: &str) -> anyhow::Result<i32> {
    let dir = match session_dir(project, name) {
        Ok(d) => d,
        Err(e) => {
            crate::app::print_error(&e);
            return Ok(crate::app::EXIT_FAIL);
        }
    };
    let act = crate::session::store::last_activity(&dir);
    let pid = running_pid(&dir);
    let stats = Stats::load(&dir.join("stats.json"));
    let plan = read_lossy(&dir.join("plan.md"));
    let summary = read_lossy(&dir.join("summary.txt"));
    let turns = last_turns(&dir.join("events.jsonl"), SHOW_TURNS);
    let (entries, source, _) = super::usage::session_entries(&dir, None);
    let ov = super::prices::Overrides::load();
    let mut cost = 0.0;
    let mut priced = 0;
    for e in &entries {
        if let Some(p) = ov.price(&e.model) {
            cost += super::prices::cost(&p, &e.usage());
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
                "input": t.input, "answer": t.answer, "tools": t.tools, "errors": t.errors
            })).collect::<Vec<_>>(),
        });
        println!("{v}");
        return Ok(crate::app::EXIT_OK);
    }
    let n = super::usage::fmt_n;
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
            super::sessions::pid_text(p)
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
                "\n> {}\n",
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
    Ok(crate::app::EXIT_OK)
}
