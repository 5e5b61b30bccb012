//! One file's sync inside the index's write transaction: the recorded row, the check that
//! the bytes before the recorded offset are still the same (else re-index from 0), and
//! the reading and indexing of only the new complete lines.
use super::index::{err, SyncStats};
use super::writer::{Ev, Fields, Run, Writer};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How many bytes before the offset are hashed to notice a rewritten file.
const TAIL: u64 = 256;

/// What tells an unchanged file: inode, size and mtime (nanoseconds).
pub(crate) fn stamp(meta: &std::fs::Metadata) -> (i64, i64, i64) {
    (
        meta.ino() as i64,
        meta.len() as i64,
        meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
    )
}

pub(crate) fn forget_in(tx: &Transaction, path: &str) -> Result<(), String> {
    tx.prepare_cached(
        "DELETE FROM messages WHERE file_id = (SELECT id FROM files WHERE path = ?1)",
    )
    .and_then(|mut q| q.execute([path]))
    .map_err(err)?;
    tx.prepare_cached("DELETE FROM files WHERE path = ?1")
        .and_then(|mut q| q.execute([path]))
        .map_err(err)?;
    Ok(())
}

pub(crate) fn row(conn: &Connection, path: &str) -> rusqlite::Result<Option<FileRow>> {
    conn.prepare_cached(
        "SELECT inode, size, mtime, offset, line_no, tail_hash, run_id, run_type, id
         FROM files WHERE path = ?1",
    )?
    .query_row([path], |r| {
        Ok(FileRow {
            inode: r.get(0)?,
            size: r.get(1)?,
            mtime: r.get(2)?,
            offset: r.get(3)?,
            line_no: r.get(4)?,
            tail_hash: r.get(5)?,
            run_id: r.get(6)?,
            run_type: r.get(7)?,
            id: r.get(8)?,
        })
    })
    .optional()
}

/// Index the bytes of one events.jsonl past its recorded offset, inside `tx`.
pub(crate) fn sync_in(
    tx: &Transaction,
    file: &Path,
    key: &str,
    project: &str,
    session: &str,
    st: &mut SyncStats,
) -> Result<(), String> {
    let mut f = match crate::util::fsx::open_read(file) {
        Ok(f) => f,
        // Removed between the stat and now: the next sync forgets it.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(err(e)),
    };
    let meta = f.metadata().map_err(err)?;
    let (inode, _, mtime) = stamp(&meta);
    let mut row = match row(tx, key).map_err(err)? {
        Some(r) => r,
        // A new file: its row first, for the id its messages refer to (the values are
        // set at the end of this sync, in the same transaction).
        None => {
            tx.prepare_cached(
                "INSERT INTO files(path, project, session, inode, size, mtime, offset, line_no, tail_hash)
                 VALUES (?1, ?2, ?3, ?4, 0, 0, 0, 0, 0)",
            )
            .and_then(|mut q| q.execute(params![key, project, session, inode]))
            .map_err(err)?;
            FileRow {
                inode,
                id: tx.last_insert_rowid(),
                ..FileRow::default()
            }
        }
    };
    // Only a recorded offset makes the check read (and move the file's position).
    let moved = row.offset > 0;
    let fresh = row.inode != inode || !tail_matches(&mut f, row.offset as u64, row.tail_hash);
    if fresh && row.offset > 0 {
        st.reindexed += 1;
    }
    if fresh {
        tx.prepare_cached("DELETE FROM messages WHERE file_id = ?1")
            .and_then(|mut q| q.execute([row.id]))
            .map_err(err)?;
        row = FileRow {
            inode,
            id: row.id,
            ..FileRow::default()
        };
    }
    if moved {
        f.seek(SeekFrom::Start(row.offset as u64)).map_err(err)?;
    }
    let mut buf = Vec::with_capacity(meta.len().saturating_sub(row.offset as u64) as usize);
    f.read_to_end(&mut buf).map_err(err)?;
    // The size recorded is the one read: bytes appended after this read change it.
    let size = row.offset + buf.len() as i64;
    let complete = buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    st.files_read += 1;
    st.bytes_read += complete as u64;
    let mut w = Writer {
        tx,
        file_id: row.id,
        run: None,
        insert: None,
    };
    if let (Some(id), Some(t)) = (row.run_id, row.run_type.clone()) {
        let text: Option<String> = tx
            .prepare_cached("SELECT text FROM messages WHERE id = ?1")
            .and_then(|mut q| q.query_row([id], |r| r.get(0)).optional())
            .map_err(err)?;
        if let Some(text) = text {
            w.run = Some(Run {
                id: Some(id),
                kind: t,
                text,
                line_no: 0,
                offset: 0,
            });
        }
    }
    let mut pos = row.offset;
    let mut line_no = row.line_no;
    for raw in buf[..complete].split_inclusive(|&b| b == b'\n') {
        line_no += 1;
        let at = pos;
        pos += raw.len() as i64;
        let text = String::from_utf8_lossy(raw);
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        // Most events (usage, stop, tool timing…) hold no searchable text, and the others
        // are read through borrowed fields; only a line that read cannot take is parsed
        // into a whole value.
        if t.starts_with('{') {
            if let Ok(ev) = serde_json::from_str::<Ev>(t) {
                if super::writer::is_searchable(&ev.ty) {
                    st.messages += w.line(Fields::Typed(&ev), line_no, at).map_err(err)?;
                } else {
                    w.skip().map_err(err)?;
                }
                continue;
            }
        }
        match serde_json::from_str::<Value>(t) {
            Ok(v) if v.get("type").and_then(Value::as_str).is_some() => {
                st.messages += w.line(Fields::Value(&v), line_no, at).map_err(err)?;
            }
            _ => st.bad_lines += 1,
        }
    }
    let (run_id, run_type) = w.flush().map_err(err)?;
    // The bytes before the new offset are in memory unless fewer than TAIL were read.
    let start = row.offset as u64;
    let tail = match (pos as u64).checked_sub(TAIL) {
        Some(from) if from >= start => {
            let (a, b) = ((from - start) as usize, (pos as u64 - start) as usize);
            crate::util::hash::fnv64(&buf[a..b]) as i64
        }
        _ => tail_hash(&mut f, pos as u64).map_err(err)?,
    };
    tx.prepare_cached(
        "UPDATE files SET project = ?2, session = ?3, inode = ?4, size = ?5, mtime = ?6,
           offset = ?7, line_no = ?8, tail_hash = ?9, run_id = ?10, run_type = ?11
         WHERE id = ?1",
    )
    .and_then(|mut q| {
        q.execute(params![
            row.id, project, session, inode, size, mtime, pos, line_no, tail, run_id, run_type
        ])
    })
    .map_err(err)?;
    Ok(())
}

#[derive(Debug, Default, Clone)]
pub(crate) struct FileRow {
    pub(crate) inode: i64,
    pub(crate) size: i64,
    pub(crate) mtime: i64,
    pub(crate) offset: i64,
    pub(crate) line_no: i64,
    pub(crate) tail_hash: i64,
    pub(crate) run_id: Option<i64>,
    pub(crate) run_type: Option<String>,
    /// The row id messages refer to.
    pub(crate) id: i64,
}

fn tail_hash(f: &mut std::fs::File, end: u64) -> std::io::Result<i64> {
    let start = end.saturating_sub(TAIL);
    f.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; (end - start) as usize];
    f.read_exact(&mut buf)?;
    Ok(crate::util::hash::fnv64(&buf) as i64)
}

fn tail_matches(f: &mut std::fs::File, end: u64, expected: i64) -> bool {
    if end == 0 {
        return true;
    }
    match f.metadata() {
        Ok(m) if m.len() >= end => {}
        _ => return false,
    }
    tail_hash(f, end).is_ok_and(|h| h == expected)
}
