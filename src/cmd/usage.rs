//! `bash-agent usage [--all] [--since 7d]`: token usage and cost per session and model.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::usage::prices::Overrides;
use crate::usage::report::{
    name_of, render_table, session_entries, sub_sessions, SessionUsage, Totals,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `bash-agent usage`.
pub fn cmd_usage(o: &Opts, all: bool, since: Option<&str>) -> Result {
    let cutoff = match since {
        None => None,
        Some(s) => match crate::util::time::parse_duration(s) {
            Some(d) => Some(crate::util::time::now_secs() - d),
            None => {
                return Err(Error::usage(format!(
                    "Invalid --since: {s} (use e.g. 7d, 12h, 30m)"
                )));
            }
        },
    };
    let dirs: Vec<PathBuf> = if all {
        crate::session::store::sub_dirs(&crate::session::paths::projects_root())
            .iter()
            .flat_map(|p| crate::session::store::sub_dirs(p))
            .collect()
    } else {
        let project = crate::session::select::project_dir()?;
        let Some(id) = crate::session::select::named_or_latest(o, &project)? else {
            println!("No sessions found.");
            return Ok(());
        };
        let dir = project.join(&id);
        if !dir.is_dir() {
            return Err(Error::runtime(format!(
                "no session named {id} in this project"
            )));
        }
        let mut v = vec![dir.clone()];
        for s in sub_sessions(&dir) {
            let p = project.join(s);
            if p.is_dir() && !v.contains(&p) {
                v.push(p);
            }
        }
        v
    };
    let ov = match Overrides::load_checked() {
        Ok(ov) => ov,
        Err(e) => {
            eprintln!("note: ignoring prices in {e}");
            Overrides::default()
        }
    };
    let mut sessions = Vec::new();
    let mut models: BTreeMap<String, Totals> = BTreeMap::new();
    let mut total = Totals::default();
    let mut skipped = 0;
    for dir in &dirs {
        let (entries, source, bad) = session_entries(dir, cutoff);
        skipped += bad;
        if entries.is_empty() {
            continue;
        }
        let mut t = Totals::default();
        for e in &entries {
            t.add(e, &ov);
            let m = if e.model.is_empty() {
                "unknown"
            } else {
                &e.model
            };
            models.entry(m.to_string()).or_default().add(e, &ov);
        }
        total.merge(&t);
        sessions.push(SessionUsage {
            project: dir.parent().map(name_of).unwrap_or_default(),
            session: name_of(dir),
            source,
            totals: t,
        });
    }
    if skipped > 0 {
        eprintln!("note: skipped {skipped} corrupt line(s) in usage.jsonl/events.jsonl");
    }
    if o.json {
        let obj = |pairs: Vec<(&str, Value)>| {
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<serde_json::Map<String, Value>>()
        };
        let out = json!({
            "scope": if all { "all" } else { "session" },
            "since": since,
            "sessions": sessions.iter().map(|s| s.totals.json(obj(vec![
                ("project", json!(s.project)),
                ("session", json!(s.session)),
                ("source", json!(s.source)),
            ]))).collect::<Vec<_>>(),
            "models": models.iter().map(|(m, t)| t.json(obj(vec![("model", json!(m))]))).collect::<Vec<_>>(),
            "total": total.json(serde_json::Map::new()),
            "skipped_lines": skipped,
        });
        println!("{out}");
        return Ok(());
    }
    if sessions.is_empty() {
        println!("No usage recorded.");
        return Ok(());
    }
    print!("{}", render_table(&sessions, &models, &total));
    Ok(())
}
