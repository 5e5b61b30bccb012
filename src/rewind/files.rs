//! The files side of a rewind: which files the dropped turns changed (their tool_use ids
//! in the file history), the version to put back, outside changes, and the copies kept so
//! the rewind itself can be undone.
use super::journal::Side;
use crate::history::files::{blob_name, read_index, FileState, Record};
use crate::session::Session;
use crate::util::jsonl::Obj;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// One file to change: from what is on disk now to `target`.
#[derive(Debug, Clone)]
pub struct Change {
    pub path: PathBuf,
    /// What to write (`None`: the file must not exist) and its mode.
    pub target: Option<(Vec<u8>, u32)>,
    /// The state the session last left the file in (the agent's last write, an undo).
    pub known: Option<FileState>,
    /// Where `target`'s bytes are kept (a file-history blob, a rewind's copy): the journal
    /// names it, so a run after a crash can write the file again.
    pub copy: PathBuf,
}

impl Change {
    /// The state the file is in once `target` is written.
    /// The journal's side of `target`.
    pub fn target_side(&self) -> Side {
        Side::of(
            self.target.as_ref().map(|(b, m)| (b.as_slice(), *m)),
            &self.copy,
        )
    }

    pub fn target_state(&self) -> FileState {
        match &self.target {
            None => FileState::absent(),
            Some((b, _)) => FileState {
                exists: true,
                size: b.len() as u64,
                hash: crate::util::hash::hex(b),
            },
        }
    }
}

/// The file-history turns whose changes are rewound, and the files to restore.
#[derive(Debug, Clone, Default)]
pub struct FilePlan {
    pub turns: Vec<u64>,
    pub changes: Vec<Change>,
}

/// Plan restoring the files changed by the tool calls `ids` (the dropped turns' tool_use
/// ids): per path, the version saved before the first change of those turns.
pub fn plan(session: &Session, ids: &BTreeSet<String>) -> Result<FilePlan, String> {
    let (records, _bad) = read_index(session);
    let turns: BTreeSet<u64> = records
        .iter()
        .filter_map(|r| match r {
            Record::Before {
                turn, tool_use_id, ..
            } if ids.contains(tool_use_id) => Some(*turn),
            _ => None,
        })
        .collect();
    let mut known: HashMap<PathBuf, FileState> = HashMap::new();
    let mut first: BTreeMap<PathBuf, &Record> = BTreeMap::new();
    for r in &records {
        match r {
            Record::Before { turn, path, .. } if turns.contains(turn) => {
                first.entry(path.clone()).or_insert(r);
            }
            Record::After { path, state, .. } => {
                known.insert(path.clone(), state.clone());
            }
            Record::Undo { files, .. } | Record::Redo { files, .. } => {
                for (p, s) in files {
                    known.insert(p.clone(), s.clone());
                }
            }
            Record::Before { .. } => {}
        }
    }
    let mut changes = Vec::new();
    for (path, r) in first {
        let Record::Before {
            existed,
            mode,
            hash,
            blob,
            ..
        } = r
        else {
            continue;
        };
        let at = session.file_history().join(blob);
        let target = if *existed {
            let bytes = fs::read(&at).map_err(|e| {
                format!(
                    "saved copy of {} is unreadable ({}): {e}",
                    path.display(),
                    at.display()
                )
            })?;
            if crate::util::hash::hex(&bytes) != *hash {
                return Err(format!(
                    "saved copy of {} is damaged ({}); nothing was changed",
                    path.display(),
                    at.display()
                ));
            }
            Some((bytes, *mode))
        } else {
            None
        };
        changes.push(Change {
            known: known.get(&path).cloned(),
            path,
            target,
            copy: at,
        });
    }
    Ok(FilePlan {
        turns: turns.into_iter().collect(),
        changes,
    })
}

/// The files whose current state is not the one the session last left them in, each with
/// what happened to it (`modified`, `deleted`, `created`).
pub fn outside_changes(changes: &[Change]) -> Result<Vec<(PathBuf, &'static str)>, String> {
    let mut out = Vec::new();
    for c in changes {
        let now =
            FileState::of(&c.path).map_err(|e| format!("cannot read {}: {e}", c.path.display()))?;
        if let Some(exp) = &c.known {
            if *exp != now {
                let why = match (exp.exists, now.exists) {
                    (true, false) => "deleted",
                    (false, true) => "created",
                    _ => "modified",
                };
                out.push((c.path.clone(), why));
            }
        }
    }
    Ok(out)
}

/// The refusal listing outside changes; `how` says how to go on anyway.
pub fn refusal(what: &str, outside: &[(PathBuf, &str)], how: &str) -> String {
    let mut msg = format!(
        "refusing to {what}: {} file(s) changed outside the agent since it last wrote them:",
        outside.len()
    );
    for (p, why) in outside {
        msg.push_str(&format!("\n  {} ({why})", p.display()));
    }
    msg.push_str(&format!(
        "\nnothing was changed; {how} to go on anyway (their current content is kept in the session's rewinds/ folder)"
    ));
    msg
}

/// Copy the current version of each changed file into `dir` (for `rewind --undo`) and
/// describe it: `{"path","existed","mode","size","hash","blob"}` objects, plus the state
/// the rewind leaves (`after`); and the journal's side of each (its copy named in
/// `final_dir`, where `dir` is moved once complete).
pub fn save_current(
    dir: &Path,
    final_dir: &Path,
    changes: &[Change],
) -> Result<(Vec<String>, Vec<Side>), String> {
    let mut out = Vec::new();
    let mut sides = Vec::new();
    for c in changes {
        let meta = match fs::metadata(&c.path) {
            Ok(m) if m.is_file() => Some(m),
            Ok(_) => return Err(format!("{} is not a regular file", c.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot read {}: {e}", c.path.display())),
        };
        let name = blob_name(&c.path);
        let (existed, mode, size, hash) = match &meta {
            Some(m) => {
                let bytes =
                    fs::read(&c.path).map_err(|e| format!("read {}: {e}", c.path.display()))?;
                crate::util::fsx::write_atomic(&dir.join(&name), &bytes)
                    .map_err(|e| format!("cannot keep a copy of {}: {e}", c.path.display()))?;
                let _ = fs::set_permissions(dir.join(&name), fs::Permissions::from_mode(0o600));
                let mode = m.permissions().mode() & 0o7777;
                sides.push(Side::of(Some((&bytes, mode)), &final_dir.join(&name)));
                (
                    true,
                    mode,
                    bytes.len() as u64,
                    crate::util::hash::hex(&bytes),
                )
            }
            None => {
                sides.push(Side::of(None, &final_dir.join(&name)));
                (false, 0, 0, String::new())
            }
        };
        let after = c.target_state().obj(Obj::new()).finish();
        out.push(
            Obj::new()
                .str("path", &c.path.to_string_lossy())
                .bool("existed", existed)
                .num("mode", i64::from(mode))
                .num("size", size as i64)
                .str("hash", &hash)
                .str("blob", &name)
                .raw("after", &after)
                .finish(),
        );
    }
    Ok((out, sides))
}

/// The changes that put back the copies [`save_current`] kept (for `rewind --undo`).
pub fn saved_changes(dir: &Path, files: &[Value]) -> Result<Vec<Change>, String> {
    let mut out = Vec::new();
    for f in files {
        let s = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("");
        let path = PathBuf::from(s("path"));
        let at = dir.join(s("blob"));
        let target = if f.get("existed").and_then(Value::as_bool).unwrap_or(false) {
            let bytes = fs::read(&at)
                .map_err(|e| format!("kept copy of {} is unreadable: {e}", path.display()))?;
            if crate::util::hash::hex(&bytes) != s("hash") {
                return Err(format!(
                    "kept copy of {} is damaged ({}); nothing was changed",
                    path.display(),
                    at.display()
                ));
            }
            let mode = f.get("mode").and_then(Value::as_u64).unwrap_or(0o644) as u32;
            Some((bytes, mode))
        } else {
            None
        };
        let known = f.get("after").map(FileState::from_value);
        out.push(Change {
            path,
            target,
            known,
            copy: at,
        });
    }
    Ok(out)
}
