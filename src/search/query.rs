//! `bash-agent search "words" [--all-projects] [--json]`: full-text search over the
//! sessions' events (user inputs, answers, thinking, tool calls and results, sub-agent and
//! background results, errors) through the index in `search_index.rs`.
use super::index::{Hit, Index};

/// Hits shown at most.
pub const LIMIT: usize = 50;

/// Turn the user's words into an FTS5 query: every word must occur (AND); each word is a
/// quoted phrase (so punctuation cannot break the syntax), `word*` keeps a prefix search.
/// `None` when no word has a letter or digit.
pub fn fts_query(words: &str) -> Option<String> {
    let parts: Vec<String> = words
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| {
            let (body, star) = match w.strip_suffix('*') {
                Some(b) => (b, "*"),
                None => (w, ""),
            };
            format!("\"{}\"{star}", body.replace('"', "\"\""))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The index file.
pub fn index_path() -> std::path::PathBuf {
    crate::session::paths::agent_home().join("index.db")
}

/// Sync the index for the scope and run the query.
pub fn search(words: &str, all_projects: bool, marks: (&str, &str)) -> Result<Vec<Hit>, String> {
    let q = fts_query(words).ok_or("nothing to search for: give at least one word")?;
    // Another search syncing the same index at the same moment can make SQLite answer
    // "locked" where its busy handler does not apply (a journal-mode switch on a new file):
    // try again a few times before giving up.
    let mut tries = 0;
    loop {
        match search_once(&q, all_projects, marks) {
            Err(e) if e.contains("locked") && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

fn search_once(q: &str, all_projects: bool, marks: (&str, &str)) -> Result<Vec<Hit>, String> {
    let mut idx = Index::open(&index_path())?;
    let project = if all_projects {
        idx.sync_all(&crate::session::paths::projects_root())?;
        None
    } else {
        let dir = crate::session::select::project_dir().map_err(|e| e.to_string())?;
        idx.sync_project(&dir)?;
        dir.file_name().map(|n| n.to_string_lossy().into_owned())
    };
    idx.search(q, project.as_deref(), LIMIT + 1, marks)
}

pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn query_building() {
        assert_eq!(fts_query("foo bar").as_deref(), Some("\"foo\" \"bar\""));
        assert_eq!(
            fts_query("pre* a\"b").as_deref(),
            Some("\"pre\"* \"a\"\"b\"")
        );
        assert_eq!(fts_query("  -- ! "), None);
        assert_eq!(fts_query("notes.txt").as_deref(), Some("\"notes.txt\""));
    }
}
