//! Small shared helpers: atomic file writes, time formatting, randomness.
pub mod cancel;
pub mod crash;
pub mod fsx;
pub mod hash;
pub mod jsonl;
pub mod net;
pub mod say;
pub mod shown;
pub mod time;
pub mod tunnel;

/// A few random bytes from the OS (falls back to time + pid hashing).
pub fn random_u64() -> u64 {
    use std::io::Read;
    let mut buf = [0u8; 8];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        if f.read_exact(&mut buf).is_ok() {
            return u64::from_ne_bytes(buf);
        }
    }
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    h.finish()
}
