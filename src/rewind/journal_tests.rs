//! The journal's roll-back and its idempotence, on a session folder in a temp dir (the
//! kills of the real binary are in tests/faults/rewind_kill.rs).
use super::journal::*;
use super::recover::recover;
use super::{joined, rewinds_dir};
use crate::session::Session;
use std::fs;
use std::path::{Path, PathBuf};

fn line(s: &str) -> Vec<u8> {
    format!("{{\"role\":\"user\",\"content\":\"{s}\"}}").into_bytes()
}

struct Fx {
    _tmp: tempfile::TempDir,
    session: Session,
    work: PathBuf,
    dir: PathBuf,
    before: Vec<u8>,
}

fn fx() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let session = Session::new(&tmp.path().join("proj"), "s");
    fs::create_dir_all(session.file_history()).unwrap();
    let work = tmp.path().join("work");
    fs::create_dir_all(&work).unwrap();
    let before = joined(&[line("A"), line("B"), line("C")]);
    fs::write(session.conversation(), &before).unwrap();
    fs::write(session.events(), "{\"type\":\"session_start\"}\n").unwrap();
    let dir = rewinds_dir(&session).join("1");
    fs::create_dir_all(dir.join("files")).unwrap();
    fs::write(
        dir.join("conversation.jsonl"),
        joined(&[line("B"), line("C")]),
    )
    .unwrap();
    fs::write(dir.join("manifest.json"), "{}\n").unwrap();
    Fx {
        _tmp: tmp,
        session,
        work,
        dir,
        before,
    }
}

/// A file now holding `now` (kept in the rewind's files/), to become `old` (kept at
/// `old_copy`, written there unless `missing`).
fn step(f: &Fx, name: &str, now: &str, old: &str, missing: bool) -> FileStep {
    let path = f.work.join(name);
    fs::write(&path, now).unwrap();
    let kept = f.dir.join("files").join(name);
    fs::write(&kept, now).unwrap();
    let old_copy = f.session.file_history().join(name);
    if !missing {
        fs::write(&old_copy, old).unwrap();
    }
    FileStep {
        path: path.to_string_lossy().into_owned(),
        from: Side::of(Some((now.as_bytes(), 0o644)), &kept),
        to: Side::of(Some((old.as_bytes(), 0o644)), &old_copy),
    }
}

fn journal(f: &Fx, files: Vec<FileStep>) -> Journal {
    Journal {
        action: Action::Rewind,
        id: 1,
        back: false,
        files,
        conversation: ConvStep {
            before: crate::util::hash::hex(&f.before),
            after: crate::util::hash::hex(&joined(&[line("A")])),
            keep: 1,
            archive: f
                .dir
                .join("conversation.jsonl")
                .to_string_lossy()
                .into_owned(),
        },
        history: Some(LineStep {
            len: 0,
            line: "{\"op\":\"undo\",\"turns\":[2]}".into(),
            back: "{\"op\":\"redo\",\"turns\":[2]}".into(),
        }),
        event: LineStep {
            len: len_of(&f.session.events()),
            line: "{\"type\":\"rewind\",\"action\":\"rewind\",\"id\":1}".into(),
            back: String::new(),
        },
        estimate: None,
    }
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|_| "<absent>".into())
}

#[test]
fn a_failed_step_rolls_everything_back_and_discards_the_rewind() {
    let f = fx();
    let a = step(&f, "a.txt", "new-a", "old-a", false);
    let b = step(&f, "b.txt", "new-b", "old-b", true); // its copy is missing: fails
    let (pa, pb) = (a.path.clone(), b.path.clone());
    let j = journal(&f, vec![a, b]);
    j.write(&f.dir).unwrap();
    match j.run(&f.session, &f.dir).unwrap() {
        Ran::RolledBack(why, _) => assert!(why.contains("b.txt"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(read(Path::new(&pa)), "new-a");
    assert_eq!(read(Path::new(&pb)), "new-b");
    assert_eq!(fs::read(f.session.conversation()).unwrap(), f.before);
    assert!(!read(&f.session.events()).contains("rewind"));
    assert!(!f.dir.exists());
    assert!(recover(&f.session).unwrap().is_empty());
}

#[test]
fn a_journal_going_back_is_rolled_back_at_the_next_open() {
    let f = fx();
    let a = step(&f, "a.txt", "new-a", "old-a", false);
    let pa = a.path.clone();
    let mut j = journal(&f, vec![a]);
    // Killed while going back: the file was already written, the history line appended.
    fs::write(&pa, "old-a").unwrap();
    fs::write(
        crate::history::files::index_path(&f.session),
        "{\"op\":\"undo\",\"turns\":[2]}\n",
    )
    .unwrap();
    j.back = true;
    j.write(&f.dir).unwrap();
    let notes = recover(&f.session).unwrap();
    assert!(notes[0].contains("rolled back"), "{notes:?}");
    assert_eq!(read(Path::new(&pa)), "new-a");
    assert_eq!(
        read(&crate::history::files::index_path(&f.session)),
        "{\"op\":\"undo\",\"turns\":[2]}\n{\"op\":\"redo\",\"turns\":[2]}\n"
    );
    assert!(!f.dir.exists());
}

#[test]
fn recovery_finishes_once_and_then_finds_nothing() {
    let f = fx();
    let a = step(&f, "a.txt", "new-a", "old-a", false);
    let pa = a.path.clone();
    let j = journal(&f, vec![a]);
    j.write(&f.dir).unwrap();
    let notes = recover(&f.session).unwrap();
    assert!(notes[0].contains("completed"), "{notes:?}");
    assert_eq!(read(Path::new(&pa)), "old-a");
    assert_eq!(
        fs::read(f.session.conversation()).unwrap(),
        joined(&[line("A")])
    );
    let events = read(&f.session.events());
    assert_eq!(events.matches("\"action\":\"rewind\"").count(), 1);
    // Run again (as after a kill just before the journal was removed): nothing doubles.
    j.write(&f.dir).unwrap();
    recover(&f.session).unwrap();
    assert_eq!(read(&f.session.events()), events);
    assert_eq!(
        read(&crate::history::files::index_path(&f.session))
            .matches("undo")
            .count(),
        1
    );
    assert!(recover(&f.session).unwrap().is_empty());
    // A file changed by someone else meanwhile is left as it is, and said.
    fs::write(&pa, "theirs").unwrap();
    j.write(&f.dir).unwrap();
    fs::write(f.session.conversation(), &f.before).unwrap();
    let notes = recover(&f.session).unwrap();
    assert!(
        notes.iter().any(|n| n.contains("a.txt was changed")),
        "{notes:?}"
    );
    assert_eq!(read(Path::new(&pa)), "theirs");
}
