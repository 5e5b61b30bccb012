//! `--list-sessions` (docs/sessions.md; sorted by last activity, newest first) and
//! `--list-sessions --json`.
use crate::session::store::{last_activity, last_activity_ns};
use crate::util::jsonl::Obj;
use std::fs;
use std::path::{Path, PathBuf};

/// One row of the list.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub path: PathBuf,
    pub last_activity: i64,
    pub sort_key: i128,
    pub preview: String,
}

/// First non-blank line of summary.txt, cut to 57 chars + `...` when over 60 chars.
pub fn preview(dir: &Path) -> String {
    let text = crate::util::fsx::read_lossy(&dir.join("summary.txt"));
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string();
    if line.chars().count() > 60 {
        let cut: String = line.chars().take(57).collect();
        format!("{cut}...")
    } else {
        line
    }
}

/// Every session folder of a project, newest activity first (ties by name).
pub fn entries(project_dir: &Path) -> Option<Vec<Entry>> {
    let rd = fs::read_dir(project_dir).ok()?;
    let mut out: Vec<Entry> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                return None;
            }
            let path = e.path();
            Some(Entry {
                last_activity: last_activity(&path),
                sort_key: last_activity_ns(&path),
                preview: preview(&path),
                name,
                path,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.sort_key
            .cmp(&a.sort_key)
            .then_with(|| a.name.cmp(&b.name))
    });
    Some(out)
}

/// The exact text output.
pub fn render_text(project_dir: &Path) -> String {
    let Some(list) = entries(project_dir) else {
        return "No sessions found.\n".into();
    };
    let mut s = format!("{:<40} {:<16} {}\n", "NAME", "MODIFIED", "PREVIEW");
    if list.is_empty() {
        s.push_str("No sessions found.\n");
    }
    for e in list {
        s.push_str(&format!(
            "{:<40} {:<16} {}\n",
            e.name,
            crate::util::time::local_minute(e.last_activity),
            e.preview
        ));
    }
    s
}

/// One JSON array for scripts.
pub fn render_json(project_dir: &Path) -> String {
    let list = entries(project_dir).unwrap_or_default();
    let mut s = String::from("[");
    for (i, e) in list.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let stats = crate::session::stats::Stats::load(&e.path.join("stats.json"));
        let running = crate::session::lock::holder(&e.path).is_some();
        s.push_str(
            &Obj::new()
                .str("name", &e.name)
                .str("path", &e.path.to_string_lossy())
                .str(
                    "last_activity",
                    &crate::util::time::rfc3339_local(e.last_activity),
                )
                .num("turns", stats.current_turn_count as i64)
                .str("preview", &e.preview)
                .bool("running", running)
                .finish(),
        );
    }
    s.push_str("]\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn text_format() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(render_text(&d.path().join("nope")), "No sessions found.\n");
        assert_eq!(
            render_text(d.path()),
            "NAME                                     MODIFIED         PREVIEW\nNo sessions found.\n"
        );
        fs::create_dir(d.path().join("s1")).unwrap();
        fs::write(
            d.path().join("s1/summary.txt"),
            "\n".to_string() + &"x".repeat(70) + "\n",
        )
        .unwrap();
        let t = render_text(d.path());
        let row = t.lines().nth(1).unwrap();
        assert!(row.starts_with(&format!("{:<40} ", "s1")));
        assert!(row.ends_with(&format!("{}...", "x".repeat(57))));
        fs::create_dir(d.path().join("s2")).unwrap();
        let t = render_text(d.path());
        assert!(t.lines().any(|l| l.starts_with("s2") && l.ends_with(' ')));
    }
}
