//! Time formatting without a date crate: local time through libc's `localtime_r`.
use std::time::{SystemTime, UNIX_EPOCH};

/// Broken-down time.
#[derive(Debug, Clone, Copy)]
pub struct Tm {
    pub year: i32,
    pub mon: u32,
    pub day: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
}

pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

pub fn now_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

fn conv(secs: i64, local: bool) -> Tm {
    let t: libc::time_t = secs as libc::time_t;
    // SAFETY: tm is plain data; localtime_r/gmtime_r only write into it.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    unsafe {
        if local {
            libc::localtime_r(&t, &mut tm);
        } else {
            libc::gmtime_r(&t, &mut tm);
        }
    }
    Tm {
        year: tm.tm_year + 1900,
        mon: (tm.tm_mon + 1) as u32,
        day: tm.tm_mday as u32,
        hour: tm.tm_hour as u32,
        min: tm.tm_min as u32,
        sec: tm.tm_sec as u32,
    }
}

pub fn local(secs: i64) -> Tm {
    conv(secs, true)
}

pub fn utc(secs: i64) -> Tm {
    conv(secs, false)
}

/// `YYYY-MM-DDTHH:MM:SSZ` in UTC (stats.json `last_updated`, event timestamps).
pub fn utc_iso(secs: i64) -> String {
    let t = utc(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year, t.mon, t.day, t.hour, t.min, t.sec
    )
}

pub fn utc_iso_now() -> String {
    utc_iso(now_secs())
}

/// `YYYY-MM-DD HH:MM` in local time (`--list-sessions`).
pub fn local_minute(secs: i64) -> String {
    let t = local(secs);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        t.year, t.mon, t.day, t.hour, t.min
    )
}

/// [`local_minute`] appended to `s`, digits written directly (a listing formats one per
/// session).
pub fn push_local_minute(s: &mut String, secs: i64) {
    let t = local(secs);
    if !(0..=9999).contains(&t.year) {
        s.push_str(&local_minute(secs));
        return;
    }
    fn digits(s: &mut String, v: u32, n: usize) {
        let mut b = [b'0'; 4];
        let mut v = v;
        for i in (0..n).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        s.extend(b[..n].iter().map(|&c| c as char));
    }
    // Fields over their width (never from localtime) go through the formatter.
    if t.mon > 99 || t.day > 99 || t.hour > 99 || t.min > 99 {
        s.push_str(&local_minute(secs));
        return;
    }
    digits(s, t.year as u32, 4);
    s.push('-');
    digits(s, t.mon, 2);
    s.push('-');
    digits(s, t.day, 2);
    s.push(' ');
    digits(s, t.hour, 2);
    s.push(':');
    digits(s, t.min, 2);
}

/// `YYYYMMDD-HHMMSS` in local time (session ids).
pub fn local_compact(secs: i64) -> String {
    let t = local(secs);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        t.year, t.mon, t.day, t.hour, t.min, t.sec
    )
}

/// RFC 3339 with the local UTC offset, e.g. `2026-12-01T05:11:16+00:00`.
pub fn rfc3339_local(secs: i64) -> String {
    let t = local(secs);
    let off = tz_offset_secs(secs);
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.abs();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}:{:02}",
        t.year,
        t.mon,
        t.day,
        t.hour,
        t.min,
        t.sec,
        sign,
        a / 3600,
        (a % 3600) / 60
    )
}

fn tz_offset_secs(secs: i64) -> i64 {
    let t: libc::time_t = secs as libc::time_t;
    // SAFETY: see conv().
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    unsafe {
        libc::localtime_r(&t, &mut tm);
    }
    tm.tm_gmtoff
}

/// Parse a duration like `30d`, `12h`, `45m`, `90s`, `2w` into seconds.
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: i64 = num.parse().ok()?;
    let mul = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        "w" => 7 * 86400,
        _ => return None,
    };
    Some(n * mul)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn pushed_minute_is_the_formatted_one() {
        for secs in [0, 59, 1_700_000_000, 1_796_396_164, 253_402_300_799, -1] {
            let mut s = String::from("x");
            push_local_minute(&mut s, secs);
            assert_eq!(s, format!("x{}", local_minute(secs)), "{secs}");
        }
    }

    #[test]
    fn iso_format() {
        assert_eq!(utc_iso(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_iso(1_780_000_000), "2026-05-28T20:26:40Z");
    }
    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Some(30 * 86400));
        assert_eq!(parse_duration("7"), Some(7));
        assert_eq!(parse_duration("x"), None);
    }
}
