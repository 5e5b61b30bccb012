//! A small std-only 64-bit content hash (FNV-1a) for change detection in the file history.
//! Not cryptographic: it only has to notice that a file changed since the agent wrote it,
//! and it is always paired with the file size.
use std::io::Read;
use std::path::Path;

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// Streaming FNV-1a.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(OFFSET)
    }
}

impl Fnv {
    pub fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(PRIME);
        }
        self.0 = h;
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// FNV-1a of a byte slice.
pub fn fnv64(bytes: &[u8]) -> u64 {
    let mut h = Fnv::default();
    h.update(bytes);
    h.finish()
}

/// `fnv1a64:<16 hex digits>` of a byte slice.
pub fn hex(bytes: &[u8]) -> String {
    format!("fnv1a64:{:016x}", fnv64(bytes))
}

/// Hash a file's content without holding it in memory: `(size, "fnv1a64:…")`.
pub fn file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut f = crate::util::fsx::open_read(path)?;
    let mut h = Fnv::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        h.update(&buf[..n]);
    }
    Ok((size, format!("fnv1a64:{:016x}", h.finish())))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn known_vectors() {
        assert_eq!(fnv64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv64(b"foobar"), 0x8594_4171_f739_67e8);
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"foobar").unwrap();
        assert_eq!(file(&p).unwrap(), (6, hex(b"foobar")));
    }
}
