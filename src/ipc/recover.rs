//! Start-up recovery of a crashed run's leftovers (docs/fifo-protocol.md, "After a crash").
use crate::ipc::fifo;
use crate::ipc::notify::{append_to_buf, buffer_form, lock_buf};
use crate::ipc::resp::{self, Frame};
use crate::session::Session;
use std::fs;

/// Clean up a crashed run's leftovers (the caller holds the session lock, so any flag is
/// stale): remove agent_running.flag; turn FIFO paths that are not FIFOs back into FIFOs
/// (a regular `notify.fifo` written by an orphaned child of the shell version has its
/// frames moved into notify.buf first); fold orphan `notify.buf.<pid>` snapshots back in.
/// Returns the frames of a non-empty notify.buf WITHOUT removing it (the caller shows
/// them, then the first turn drains them).
pub fn recover_stale(session: &Session) -> Option<Vec<Frame>> {
    let _ = fs::remove_file(session.running_flag());
    let buf = session.notify_buf();
    let nf = session.notify_fifo();
    if let Ok(m) = fs::symlink_metadata(&nf) {
        if m.file_type().is_file() {
            let bytes = fs::read(&nf).unwrap_or_default();
            for f in resp::decode_all(&bytes, |_| {}) {
                let f = buffer_form(&f).unwrap_or(f);
                if matches!(
                    f.kind(),
                    "AGENT_RESULT" | "ASYNC_TASK_RESULT" | "USER_NOTIFY"
                ) {
                    let _ = append_to_buf(&buf, &f);
                }
            }
        }
    }
    for p in [session.input_fifo(), nf] {
        if p.exists() && !fifo::is_fifo(&p) {
            let _ = crate::session::store::make_fifo(&p);
        }
    }
    if let Ok(rd) = fs::read_dir(&session.dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_snap = name
                .strip_prefix("notify.buf.")
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()));
            if is_snap {
                let _g = lock_buf(&buf);
                if let Ok(bytes) = fs::read(e.path()) {
                    if crate::util::fsx::append_bytes(&buf, &bytes).is_ok() {
                        let _ = fs::remove_file(e.path());
                    }
                }
            }
        }
    }
    let _g = lock_buf(&buf);
    let bytes = fs::read(&buf).unwrap_or_default();
    let frames = resp::decode_all(&bytes, |_| {});
    if frames.is_empty() {
        None
    } else {
        Some(frames)
    }
}
