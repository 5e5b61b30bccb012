//! File history (docs/features.md): before Write/Edit change a file, the first version in a turn
//! is kept under `<session>/file-history/<turn>/<fnv64(path)>` and described by a line in
//! `<session>/file-history/index.jsonl`. After the tool ran, the resulting state is recorded
//! so `undo` can tell an outside change from the agent's own.
//!
//! index.jsonl lines (whole-line appends, compact JSON, `op` first):
//! - `{"op":"before","turn":3,"tool_use_id":"toolu_1","path":"/abs","existed":true,"mode":420,"size":17,"hash":"fnv1a64:…","blob":"3/…","time":"…Z"}`
//! - `{"op":"after","turn":3,"path":"/abs","exists":true,"size":18,"hash":"fnv1a64:…"}`
//! - `{"op":"undo","turns":[4,3],"files":[{"path":"/abs","exists":true,"size":17,"hash":"…"}],"time":"…Z"}`
//! - `{"op":"redo","turns":[4,3],"files":[…],"time":"…Z"}` (`rewind --undo` put the changes of
//!   these turns back: they count as not undone again)
use crate::session::Session;
use crate::util::jsonl::Obj;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The index file of a session's history.
pub fn index_path(session: &Session) -> PathBuf {
    session.file_history().join("index.jsonl")
}

/// The state of a path on disk: absent, or present with size and content hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub exists: bool,
    pub size: u64,
    pub hash: String,
}

impl FileState {
    pub fn absent() -> FileState {
        FileState {
            exists: false,
            size: 0,
            hash: String::new(),
        }
    }

    /// The current state of `path` (a read error other than "not found" is returned).
    pub fn of(path: &Path) -> std::io::Result<FileState> {
        match fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileState::absent()),
            Err(e) => Err(e),
            Ok(m) if !m.is_file() => Ok(FileState {
                exists: true,
                size: 0,
                hash: "not-a-file".into(),
            }),
            Ok(_) => {
                let (size, hash) = crate::util::hash::file(path)?;
                Ok(FileState {
                    exists: true,
                    size,
                    hash,
                })
            }
        }
    }

    /// `o` with this state's `exists`, `size` and `hash` members.
    pub fn obj(&self, o: Obj) -> Obj {
        o.bool("exists", self.exists)
            .num("size", self.size as i64)
            .str("hash", &self.hash)
    }

    /// The state of a parsed `{"exists":…,"size":…,"hash":…}` object.
    pub fn from_value(v: &Value) -> FileState {
        FileState {
            exists: v.get("exists").and_then(Value::as_bool).unwrap_or(false),
            size: v.get("size").and_then(Value::as_u64).unwrap_or(0),
            hash: v
                .get("hash")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        }
    }
}

/// One parsed index line.
#[derive(Debug, Clone)]
pub enum Record {
    Before {
        turn: u64,
        tool_use_id: String,
        path: PathBuf,
        existed: bool,
        mode: u32,
        size: u64,
        hash: String,
        blob: String,
    },
    After {
        turn: u64,
        path: PathBuf,
        state: FileState,
    },
    Undo {
        turns: Vec<u64>,
        files: Vec<(PathBuf, FileState)>,
    },
    /// The changes of `turns` were put back (`rewind --undo`).
    Redo {
        turns: Vec<u64>,
        files: Vec<(PathBuf, FileState)>,
    },
}

/// The highest turn number with saved copies (0 when none). A run starts counting after it:
/// turn numbers must not repeat across runs of a session, or a resumed run's first turn
/// would find the earlier run's copy in `<turn>/` and save nothing.
pub fn last_turn(session: &Session) -> u64 {
    fs::read_dir(session.file_history())
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u64>().ok()))
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0)
}

/// The absolute, symlink-resolved form of a path the tool is about to write: the tool
/// writes through symlinks, so the target is what must be saved and restored.
pub fn normalize(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match crate::session::paths::physical_cwd() {
            Ok(c) => c.join(path),
            Err(_) => path.to_path_buf(),
        }
    };
    if let Ok(c) = fs::canonicalize(&abs) {
        return c;
    }
    match (abs.parent(), abs.file_name()) {
        (Some(p), Some(n)) => fs::canonicalize(p)
            .map(|cp| cp.join(n))
            .unwrap_or(abs.clone()),
        _ => abs,
    }
}

/// The file name of `path`'s saved copy (a hash of the path).
pub fn blob_name(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    format!(
        "{:016x}",
        crate::util::hash::fnv64(path.as_os_str().as_bytes())
    )
}

fn mkdir(p: &Path) -> std::io::Result<()> {
    fs::DirBuilder::new().recursive(true).mode(0o700).create(p)
}

/// LOOP: call before Write/Edit modify `path` in turn `turn`. Keeps the first version seen
/// in this turn; later calls for the same path and turn cost one `stat`. Errors are ignored
/// (see [`try_before_change`] to get them): history must never block a tool.
pub fn before_change(session: &Session, turn: u64, path: &Path, tool_use_id: &str) {
    let _ = try_before_change(session, turn, path, tool_use_id);
}

/// [`before_change`] returning its error.
pub fn try_before_change(
    session: &Session,
    turn: u64,
    path: &Path,
    tool_use_id: &str,
) -> Result<(), String> {
    let path = normalize(path);
    let turn_dir = session.file_history().join(turn.to_string());
    let name = blob_name(&path);
    let blob = turn_dir.join(&name);
    if fs::symlink_metadata(&blob).is_ok() {
        return Ok(()); // already saved in this turn
    }
    let meta = match fs::metadata(&path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("file history: cannot stat {}: {e}", path.display())),
    };
    if meta.as_ref().is_some_and(|m| !m.is_file()) {
        return Ok(()); // not a regular file: the tool will refuse it
    }
    mkdir(&turn_dir).map_err(|e| format!("file history: {}: {e}", turn_dir.display()))?;
    let (existed, mode, content) = match &meta {
        Some(m) => {
            let bytes = fs::read(&path)
                .map_err(|e| format!("file history: read {}: {e}", path.display()))?;
            (true, m.permissions().mode() & 0o7777, bytes)
        }
        None => (false, 0, Vec::new()),
    };
    crate::util::fsx::write_atomic(&blob, &content)
        .map_err(|e| format!("file history: write {}: {e}", blob.display()))?;
    let _ = fs::set_permissions(&blob, fs::Permissions::from_mode(0o600));
    let line = Obj::new()
        .str("op", "before")
        .num("turn", turn as i64)
        .str("tool_use_id", tool_use_id)
        .str("path", &path.to_string_lossy())
        .bool("existed", existed)
        .num("mode", i64::from(mode))
        .num("size", content.len() as i64)
        .str(
            "hash",
            &if existed {
                crate::util::hash::hex(&content)
            } else {
                String::new()
            },
        )
        .str("blob", &format!("{turn}/{name}"))
        .str("time", &crate::util::time::utc_iso_now())
        .finish();
    crate::util::fsx::append_line(&index_path(session), &line)
        .map_err(|e| format!("file history: index: {e}"))
}

/// LOOP: call after the tool ran (success or not) to record the resulting state of `path`,
/// so `undo` can detect later changes made outside the agent. No-op for a path with no
/// `before_change` in this turn.
pub fn after_change(session: &Session, turn: u64, path: &Path) {
    let _ = try_after_change(session, turn, path);
}

/// [`after_change`] returning its error.
pub fn try_after_change(session: &Session, turn: u64, path: &Path) -> Result<(), String> {
    let path = normalize(path);
    let blob = session
        .file_history()
        .join(turn.to_string())
        .join(blob_name(&path));
    if fs::symlink_metadata(&blob).is_err() {
        return Ok(());
    }
    let state =
        FileState::of(&path).map_err(|e| format!("file history: {}: {e}", path.display()))?;
    let line = state
        .obj(
            Obj::new()
                .str("op", "after")
                .num("turn", turn as i64)
                .str("path", &path.to_string_lossy()),
        )
        .finish();
    crate::util::fsx::append_line(&index_path(session), &line)
        .map_err(|e| format!("file history: index: {e}"))
}

/// The `undo` record line.
pub(crate) fn undo_line(turns: &[u64], files: &[(PathBuf, FileState)]) -> String {
    op_line("undo", turns, files)
}

/// The `redo` record line (`rewind --undo`).
pub fn redo_line(turns: &[u64], files: &[(PathBuf, FileState)]) -> String {
    op_line("redo", turns, files)
}

/// An `undo`-shaped record line with `op`.
pub fn op_line(op: &str, turns: &[u64], files: &[(PathBuf, FileState)]) -> String {
    let files_json: Vec<String> = files
        .iter()
        .map(|(p, s)| s.obj(Obj::new().str("path", &p.to_string_lossy())).finish())
        .collect();
    let turns_json: Vec<String> = turns.iter().map(u64::to_string).collect();
    Obj::new()
        .str("op", op)
        .raw("turns", &format!("[{}]", turns_json.join(",")))
        .raw("files", &format!("[{}]", files_json.join(",")))
        .str("time", &crate::util::time::utc_iso_now())
        .finish()
}

/// Read the index; corrupt lines are skipped and counted.
pub fn read_index(session: &Session) -> (Vec<Record>, usize) {
    let text = crate::util::fsx::read_lossy(&index_path(session));
    let mut out = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match parse_record(line) {
            Some(r) => out.push(r),
            None => bad += 1,
        }
    }
    (out, bad)
}

fn parse_record(line: &str) -> Option<Record> {
    let v: Value = serde_json::from_str(line).ok()?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let n = |k: &str| v.get(k).and_then(Value::as_u64);
    match v.get("op")?.as_str()? {
        "before" => Some(Record::Before {
            turn: n("turn")?,
            tool_use_id: s("tool_use_id").unwrap_or_default(),
            path: PathBuf::from(s("path")?),
            existed: v.get("existed")?.as_bool()?,
            mode: n("mode").unwrap_or(0o644) as u32,
            size: n("size").unwrap_or(0),
            hash: s("hash").unwrap_or_default(),
            blob: s("blob")?,
        }),
        "after" => Some(Record::After {
            turn: n("turn")?,
            path: PathBuf::from(s("path")?),
            state: FileState::from_value(&v),
        }),
        op @ ("undo" | "redo") => {
            let (turns, files) = turns_and_files(&v)?;
            Some(if op == "undo" {
                Record::Undo { turns, files }
            } else {
                Record::Redo { turns, files }
            })
        }
        _ => None,
    }
}

type TurnsFiles = (Vec<u64>, Vec<(PathBuf, FileState)>);

fn turns_and_files(v: &Value) -> Option<TurnsFiles> {
    Some((
        v.get("turns")?
            .as_array()?
            .iter()
            .filter_map(Value::as_u64)
            .collect(),
        v.get("files")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|f| {
                        let p = f.get("path")?.as_str()?;
                        Some((PathBuf::from(p), FileState::from_value(f)))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    ))
}
