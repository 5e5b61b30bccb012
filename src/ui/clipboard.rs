//! Ctrl+V image paste (docs/interactive.md): a PNG from the clipboard (`wl-paste`, else
//! `xclip`) is stored as `<session>/images/<N>.png` (N = highest existing number + 1)
//! and `[Image #N]` is inserted. Any failure inserts nothing and says why in one line. `@photo.jpg` stores other
//! image kinds the same way, under their own extension ([`image_kind`]).
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
const TIMEOUT: Duration = Duration::from_secs(3);
/// Largest image accepted from the clipboard.
const MAX_BYTES: usize = 50 << 20;

/// The image kinds stored and sent natively: extension, media type, leading bytes.
pub const IMAGE_KINDS: &[(&str, &str, &[u8])] = &[
    ("png", "image/png", PNG_SIGNATURE),
    ("jpg", "image/jpeg", b"\xff\xd8\xff"),
    ("gif", "image/gif", b"GIF8"),
    ("webp", "image/webp", b"RIFF"),
];

/// The kind of image `bytes` hold (its extension and media type), from their signature.
pub fn image_kind(bytes: &[u8]) -> Option<(&'static str, &'static str)> {
    IMAGE_KINDS
        .iter()
        .find(|(ext, _, sig)| {
            bytes.starts_with(sig) && (*ext != "webp" || bytes.get(8..12) == Some(b"WEBP"))
        })
        .map(|(ext, mt, _)| (*ext, *mt))
}

/// The next image number in `dir`: the highest `<N>.<ext>` of any image kind + 1 (1 when
/// none).
pub fn next_image_number(dir: &Path) -> u64 {
    let mut max = 0;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = IMAGE_KINDS.iter().find_map(|(ext, _, _)| {
                name.strip_suffix(&format!(".{ext}"))
                    .and_then(|s| s.parse::<u64>().ok())
            });
            if let Some(n) = n {
                max = max.max(n);
            }
        }
    }
    max + 1
}

/// The stored file of image `n` in `dir` (any kind), if there is one.
pub fn image_file(dir: &Path, n: &str) -> Option<std::path::PathBuf> {
    IMAGE_KINDS
        .iter()
        .map(|(ext, _, _)| dir.join(format!("{n}.{ext}")))
        .find(|p| p.is_file())
}

/// Run a clipboard tool (own process group, bounded time and size); its stdout, or `Err`
/// when the tool cannot be started (not installed).
fn run(prog: &str, args: &[&str]) -> Result<Option<Vec<u8>>, ()> {
    let mut child = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|_| ())?;
    Ok(read_output(&mut child))
}

/// The child's stdout once it exits successfully in time (killed otherwise).
fn read_output(child: &mut std::process::Child) -> Option<Vec<u8>> {
    let mut out = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut out).take(MAX_BYTES as u64 + 1).read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                // Too slow (or unwaitable): kill the whole group.
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(child.id() as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
                let _ = child.wait();
                break None;
            }
        }
    };
    let buf = reader.join().ok()?;
    if status.is_some_and(|s| s.success()) && buf.len() <= MAX_BYTES {
        Some(buf)
    } else {
        None
    }
}

/// Grab a PNG from the clipboard, if a clipboard tool has one; else why not, in words
/// for the person who pressed Ctrl+V.
pub fn clipboard_png() -> Result<Vec<u8>, String> {
    let tools: [(&str, &[&str]); 2] = [
        ("wl-paste", &["--no-newline", "--type", "image/png"]),
        (
            "xclip",
            &["-selection", "clipboard", "-t", "image/png", "-o"],
        ),
    ];
    let mut any_tool = false;
    for (p, a) in tools {
        if let Ok(out) = run(p, a) {
            any_tool = true;
            if let Some(png) = out.filter(|b| b.starts_with(PNG_SIGNATURE)) {
                return Ok(png);
            }
        }
    }
    Err(if any_tool {
        "Nothing to paste: the clipboard holds no image (Ctrl+V pastes images; paste text with the terminal's own paste).".into()
    } else {
        "Nothing to paste: no clipboard tool found (Ctrl+V reads images with wl-paste or xclip)."
            .into()
    })
}

/// Store `png` as the next image of `images_dir`; returns the `[Image #N]` tag.
pub fn store_image(images_dir: &Path, png: &[u8]) -> std::io::Result<String> {
    store_image_as(images_dir, png, "png")
}

/// Store `bytes` as the next image of `images_dir` with extension `ext`.
pub fn store_image_as(images_dir: &Path, bytes: &[u8], ext: &str) -> std::io::Result<String> {
    std::fs::create_dir_all(images_dir)?;
    let n = next_image_number(images_dir);
    crate::util::fsx::write_atomic(&images_dir.join(format!("{n}.{ext}")), bytes)?;
    Ok(format!("[Image #{n}]"))
}

/// Ctrl+V: clipboard PNG → stored image → its tag; else the message to show.
pub fn paste_image(images_dir: &Path) -> Result<String, String> {
    let png = clipboard_png()?;
    store_image(images_dir, &png).map_err(|e| format!("Cannot store the pasted image: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_highest_image() {
        let d = tempfile::tempdir().expect("tmp");
        let dir = d.path().join("images");
        assert_eq!(next_image_number(&dir), 1);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("1.png"), b"x").expect("w");
        std::fs::write(dir.join("7.png"), b"x").expect("w");
        std::fs::write(dir.join("notes.txt"), b"x").expect("w");
        assert_eq!(next_image_number(&dir), 8);
        let tag = store_image(&dir, b"\x89PNG\r\n\x1a\nDATA").expect("store");
        assert_eq!(tag, "[Image #8]");
        assert_eq!(
            std::fs::read(dir.join("8.png")).expect("r"),
            b"\x89PNG\r\n\x1a\nDATA"
        );
        std::fs::write(dir.join("9.jpg"), b"\xff\xd8\xffX").expect("w");
        assert_eq!(next_image_number(&dir), 10);
        assert_eq!(image_file(&dir, "9"), Some(dir.join("9.jpg")));
        assert_eq!(image_kind(b"\xff\xd8\xff\xe0"), Some(("jpg", "image/jpeg")));
        assert_eq!(
            image_kind(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(("webp", "image/webp"))
        );
        assert_eq!(image_kind(b"RIFF\0\0\0\0WAVE"), None);
        assert_eq!(image_kind(b"hello"), None);
    }
}
